// HouseTesting: fakes and fixtures shared by the tests.
@_exported import HouseBrokerTesting
@_exported import HouseCore
