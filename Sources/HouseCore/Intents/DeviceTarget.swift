/// The device or devices a control intent resolved to: one device, or every device a plural
/// name ("lights") matched.
public struct DeviceTarget: Sendable, Equatable {
    public var devices: [Device]

    public init(_ devices: [Device]) { self.devices = devices }

    public var ids: [DeviceID] { devices.map(\.id) }
}
