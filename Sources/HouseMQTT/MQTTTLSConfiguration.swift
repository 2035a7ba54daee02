/// TLS settings. Certificate verification is on by default; turning it off must be explicit.
public struct MQTTTLSConfiguration: Sendable, Hashable, CustomStringConvertible {
    /// PEM file with the CA certificate(s) to trust. When both this and `caDirectory` are nil the
    /// operating system's trust store is used.
    public var caFile: String?
    /// Directory of hashed CA certificates (`c_rehash`).
    public var caDirectory: String?
    /// Client certificate (PEM) for mutual TLS; requires `keyFile`.
    public var certificateFile: String?
    /// Client private key (PEM, unencrypted) for mutual TLS; requires `certificateFile`.
    public var keyFile: String?
    /// Verify the broker's certificate chain (default true).
    public var verifyPeer: Bool
    /// Verify that the broker's certificate names the host connected to (default true).
    public var verifyHostname: Bool
    /// TLS protocol version, e.g. "tlsv1.2" or "tlsv1.3"; nil lets OpenSSL choose.
    public var version: String?

    public init(
        caFile: String? = nil, caDirectory: String? = nil,
        certificateFile: String? = nil, keyFile: String? = nil,
        verifyPeer: Bool = true, verifyHostname: Bool = true, version: String? = nil
    ) {
        self.caFile = caFile
        self.caDirectory = caDirectory
        self.certificateFile = certificateFile
        self.keyFile = keyFile
        self.verifyPeer = verifyPeer
        self.verifyHostname = verifyHostname
        self.version = version
    }

    public var description: String {
        var parts = ["TLS"]
        if let caFile { parts.append("CA \(caFile)") } else if let caDirectory { parts.append("CA dir \(caDirectory)") } else { parts.append("system CAs") }
        if let certificateFile { parts.append("client cert \(certificateFile)") }
        if !verifyPeer { parts.append("peer verification OFF") }
        if !verifyHostname { parts.append("hostname verification OFF") }
        return parts.joined(separator: ", ")
    }
}
