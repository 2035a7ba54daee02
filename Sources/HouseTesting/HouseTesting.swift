// HouseTesting: fakes and fixtures shared by the tests.
@_exported import HouseCore
