// HouseDaemon: composition of the subsystems (topic API, discovery, rules, persistence, routines).
// It re-exports the modules the CLI needs, so `housectl` depends on this target alone.
@_exported import HouseCore
@_exported import HouseGPIO
