import HouseDaemon

/// Loads the house configuration for the CLI subcommands of this branch (`shortcuts`, `routines`).
///
/// MERGE: the YAML loader lives on the `foundation` branch. When it is merged, replace the body
/// with the single call `try ConfigurationLoader().load(path: path)` (verified against the foundation
/// branch: both commands then answer on config/house.yaml)
/// and delete `ConfigurationLoaderMissing`.
func loadHouseConfiguration(path: String) throws -> HouseConfiguration {
    throw ConfigurationLoaderMissing(path: path)
}

/// Placeholder error until the configuration loader is merged.
struct ConfigurationLoaderMissing: Error, CustomStringConvertible {
    let path: String
    var description: String { "cannot read \(path): the configuration loader is not part of this build yet" }
}
