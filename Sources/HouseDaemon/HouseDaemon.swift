// HouseDaemon: composition of the subsystems. Filled in by the daemon issue.
@_exported import HouseCore
