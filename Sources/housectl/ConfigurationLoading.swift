import HouseDaemon

/// Loads the house configuration for the CLI subcommands (`shortcuts`, `routines`, `relays`, ...).
func loadHouseConfiguration(path: String) throws -> HouseConfiguration {
    try ConfigurationLoader().load(path: path)
}
