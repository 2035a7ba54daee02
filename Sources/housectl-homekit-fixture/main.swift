// The HomeKit bridge on a fake house, for the end-to-end tests against aiohomekit
// (Tests/HomeKit/run.sh): `housectl-homekit-fixture [--mdns] CONFIG STATE_DIR` with the setup
// code on standard input's first line (never in argv, where `ps` shows it); prints `port N` once
// listening, then takes lines on standard input: `on DEVICE`, `off DEVICE` (a change made
// elsewhere, which subscribed controllers get as an event), `quit`. With --mdns the bridge is
// announced through avahi-daemon, as `housectl serve` announces it.
import Foundation
import HouseCore
import HouseHomeKit
import HouseHomeKitTesting

var arguments = CommandLine.arguments
let announce = arguments.count > 1 && arguments[1] == "--mdns"
if announce { arguments.remove(at: 1) }
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: housectl-homekit-fixture [--mdns] CONFIG STATE_DIR (setup code on stdin)\n".utf8))
    exit(64)
}
do {
    let configuration = try ConfigurationLoader().load(path: arguments[1])
    guard let codeLine = readLine() else { throw HomeKitError.invalidSetupCode }
    let code = try SetupCode(codeLine.trimmingCharacters(in: .whitespaces))
    let confirmed = Set(configuration.devices.filter(\.confirm).map(\.id))
    let house = FakeHomeKitHouse(configuration: configuration, refused: confirmed)
    let bridge = try HomeKitBridge(configuration: configuration, stateDirectory: arguments[2], setupCode: code, house: house)
    // Off the main actor: the main thread blocks in readLine below.
    let server = Task.detached {
        try await bridge.run(host: "127.0.0.1", port: 0, announce: announce) { port in
            FileHandle.standardOutput.write(Data("port \(port)\n".utf8))
        }
    }
    while let line = readLine() {
        let words = line.split(separator: " ").map(String.init)
        if words == ["quit"] { break }
        guard words.count == 2, ["on", "off"].contains(words[0]) else {
            FileHandle.standardError.write(Data("unknown command: \(line)\n".utf8))
            continue
        }
        house.set(.device(DeviceID(words[1])), HomeKitDeviceState(on: words[0] == "on"))
        FileHandle.standardOutput.write(Data("ok \(line)\n".utf8))
    }
    server.cancel()
    _ = await server.result
} catch {
    FileHandle.standardError.write(Data("housectl-homekit-fixture: \(error)\n".utf8))
    exit(1)
}
