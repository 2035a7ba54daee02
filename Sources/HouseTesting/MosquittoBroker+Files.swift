import Foundation

extension MosquittoBroker {
    /// Writes a mosquitto password file with one user (`mosquitto_passwd -b -c`) into
    /// `directory` and returns its path, for a `password_file` config line.
    public static func makePasswordFile(in directory: URL, username: String, password: String) async throws -> URL {
        guard let tool = ChildProcess.find("mosquitto_passwd") else { throw NotInstalled() }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("passwd")
        try await ChildProcess.run(tool, ["-b", "-c", file.path, username, password])
        return file
    }

    /// Files of a throw-away PKI made by `makeTestCertificates(in:)`.
    public struct TestCertificates: Sendable {
        /// The CA that signed the server certificate.
        public let caFile: URL
        /// Server certificate for CN=localhost, SAN localhost and 127.0.0.1.
        public let serverCertificate: URL
        /// The server certificate's private key.
        public let serverKey: URL
        /// Config lines for a TLS listener using these files.
        public var listenerLines: [String] {
            ["cafile \(caFile.path)", "certfile \(serverCertificate.path)", "keyfile \(serverKey.path)"]
        }
    }

    /// Generates a throw-away CA and a server certificate signed by it, with openssl, in
    /// `directory`. `name` distinguishes several CAs in one directory.
    public static func makeTestCertificates(in directory: URL, name: String = "test") async throws -> TestCertificates {
        guard let openssl = ChildProcess.find("openssl") else {
            throw StartFailed(reason: "openssl is not installed", log: "")
        }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        func path(_ file: String) -> String { directory.appendingPathComponent("\(name)-\(file)").path }
        try await ChildProcess.run(openssl, [
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
            "-keyout", path("ca.key"), "-out", path("ca.crt"), "-subj", "/CN=housectl test CA \(name)",
        ])
        try await ChildProcess.run(openssl, [
            "req", "-newkey", "rsa:2048", "-nodes", "-keyout", path("server.key"), "-out", path("server.csr"),
            "-subj", "/CN=localhost",
        ])
        try "subjectAltName=DNS:localhost,IP:127.0.0.1\n".write(toFile: path("ext.cnf"), atomically: true, encoding: .utf8)
        try await ChildProcess.run(openssl, [
            "x509", "-req", "-in", path("server.csr"), "-CA", path("ca.crt"), "-CAkey", path("ca.key"),
            "-CAcreateserial", "-days", "2", "-out", path("server.crt"), "-extfile", path("ext.cnf"),
        ])
        return TestCertificates(
            caFile: URL(fileURLWithPath: path("ca.crt")),
            serverCertificate: URL(fileURLWithPath: path("server.crt")),
            serverKey: URL(fileURLWithPath: path("server.key")))
    }
}
