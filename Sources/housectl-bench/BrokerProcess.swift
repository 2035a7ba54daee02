import Foundation
import HouseTesting

/// A broker (or daemon) in a child process (`SpawnedProcess`): output to a file, stopped with SIGKILL.
final class ChildBroker: @unchecked Sendable {
    let name: String
    let port: Int
    let process: SpawnedProcess
    let logURL: URL
    let directory: URL

    var pid: Int32 { process.processIdentifier }

    private init(name: String, port: Int, process: SpawnedProcess, logURL: URL, directory: URL) {
        self.name = name
        self.port = port
        self.process = process
        self.logURL = logURL
        self.directory = directory
    }

    struct StartFailed: Error, CustomStringConvertible {
        var description: String
    }

    /// Starts `executable arguments` (with `files` written into a fresh directory first, `{dir}`
    /// and `{port}` replaced in arguments and files) and returns once `port` accepts connections.
    static func start(name: String, executable: String, arguments: [String], files: [String: String] = [:],
                      port: Int? = nil, environment: [String: String]? = nil) async throws -> ChildBroker {
        let port = try port ?? MosquittoBroker.freeLoopbackPort()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("housectl-bench-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        func fill(_ s: String) -> String {
            s.replacingOccurrences(of: "{dir}", with: directory.path).replacingOccurrences(of: "{port}", with: String(port))
        }
        for (file, content) in files {
            try fill(content).write(to: directory.appendingPathComponent(file), atomically: true, encoding: .utf8)
        }
        let logURL = directory.appendingPathComponent("output.log")
        let p = try CapturedProcess(executable, arguments.map(fill), outputPath: logURL.path, environment: environment ?? [:]).process
        let broker = ChildBroker(name: name, port: port, process: p, logURL: logURL, directory: directory)
        let clock = ContinuousClock()
        let end = clock.now.advanced(by: .seconds(20))
        while clock.now < end {
            if !p.isRunning {
                let log = (try? String(contentsOf: logURL, encoding: .utf8)) ?? ""
                throw StartFailed(description: "\(name) exited at start: \(log.suffix(600))")
            }
            if MosquittoBroker.acceptsConnections(port: port) { return broker }
            try await Task.sleep(for: .milliseconds(5))
        }
        broker.kill()
        throw StartFailed(description: "\(name) not accepting on port \(port) after 20 s")
    }

    /// SIGKILL by PID, then reap; removes the directory.
    func kill() {
        process.send(SIGKILL)
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }

}

/// The brokers under test, as child processes.
enum Brokers {
    /// mosquitto with `set_tcp_nodelay true`, no persistence, errors only in the log, and
    /// `max_inflight_messages 100` as in deploy/mosquitto/mosquitto.conf (mosquitto's default, 20,
    /// is also the receive maximum it gives MQTT 5 clients such as the controller).
    static func mosquitto() async throws -> ChildBroker {
        guard let exe = MosquittoBroker.executable else { throw ChildBroker.StartFailed(description: "mosquitto is not installed") }
        var conf = """
            per_listener_settings false
            persistence false
            log_dest stderr
            log_type error
            listener {port} 127.0.0.1
            set_tcp_nodelay true
            allow_anonymous true
            max_queued_messages 100000
            max_inflight_messages 100
            """
        if geteuid() == 0 { conf = "user root\n" + conf }
        return try await ChildBroker.start(name: "mosquitto", executable: exe, arguments: ["-c", "{dir}/mosquitto.conf"],
                                           files: ["mosquitto.conf": conf + "\n"])
    }

    /// `housectl broker` (our HouseBroker) in its own process, like mosquitto.
    static func house(housectl: String) async throws -> ChildBroker {
        try await ChildBroker.start(name: "housebroker", executable: housectl,
                                    arguments: ["broker", "--host", "127.0.0.1", "--port", "{port}", "--max-queued", "100000"])
    }

    /// amqtt from the bench venv.
    static func amqtt(venv: String) async throws -> ChildBroker {
        let exe = venv + "/bin/amqtt"
        guard FileManager.default.isExecutableFile(atPath: exe) else {
            throw ChildBroker.StartFailed(description: "amqtt is not installed in \(venv) (bench/run.sh runs pip install amqtt)")
        }
        let conf = """
            listeners:
              default:
                type: tcp
                bind: 127.0.0.1:{port}
            plugins:
              amqtt.plugins.authentication.AnonymousAuthPlugin:
                allow_anonymous: true
            """
        return try await ChildBroker.start(name: "amqtt", executable: exe, arguments: ["-c", "{dir}/amqtt.yaml"],
                                           files: ["amqtt.yaml": conf + "\n"])
    }
}
