/// Where a sensor's value comes from: an MQTT topic (zigbee2mqtt, Tasmota, ESPHome, another Pi),
/// the whole payload as a number or one field of a JSON payload.
public struct SensorSource: Sendable, Equatable {
    public var stateTopic: String
    /// The JSON field holding the value, `.` between nested names (`AM2301.Temperature`); nil
    /// when the payload is the number itself.
    public var jsonField: String?
    /// The unit people read with the value (`°C`, `%`).
    public var unit: String?
    /// What it measures, as Home Assistant names it (`temperature`, `humidity`, ...).
    public var deviceClass: SensorClass?
    /// A value older than this is no value: the sensor is unavailable until the next one (a
    /// zigbee sensor whose battery died keeps its last retained value for ever).
    public var staleAfter: Duration?

    public init(stateTopic: String, jsonField: String? = nil, unit: String? = nil, deviceClass: SensorClass? = nil,
                staleAfter: Duration? = nil) {
        self.stateTopic = stateTopic
        self.jsonField = jsonField
        self.unit = unit
        self.deviceClass = deviceClass
        self.staleAfter = staleAfter
    }
}

/// What a sensor measures (Home Assistant's sensor device classes that a house has most).
public enum SensorClass: String, Sendable, Equatable, CaseIterable {
    case temperature, humidity, pressure, illuminance, power, energy, voltage, current
}

/// A sensor's latest reading: a value, or why there is none.
public enum SensorReading: Sendable, Equatable {
    case value(Double, at: WallInstant)
    case unavailable(reason: String)
}
