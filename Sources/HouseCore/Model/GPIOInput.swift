/// A wall button, a door or window contact or a motion sensor wired to a GPIO line of a node
/// (`inputs:` in house.yaml): read through the kernel's edge events, debounced in software on
/// the kernel's timestamps (libgpiod 1.6 has no kernel debounce setting).
public struct GPIOInput: Sendable, Equatable {
    public var node: NodeID
    /// The line offset on the node's chip (the BCM number on a Pi).
    public var line: Int
    /// True when the input is active (pressed, open, motion) at a low level: a switch to ground
    /// with a pull-up, the usual wiring.
    public var activeLow: Bool
    public var bias: InputBias
    /// How long a level must hold before it counts; shorter flickers are chatter.
    public var debounce: Duration
    /// What a contact or motion sensor is, as Home Assistant names it (`door`, `window`,
    /// `garage_door`, `motion`...).
    public var deviceClass: String?
    /// A button: a second press within this time after a release is a double press.
    public var doublePress: Duration
    /// A button: held this long is a long press.
    public var longPress: Duration

    public static let defaultDebounce: Duration = .milliseconds(50)
    public static let defaultDoublePress: Duration = .milliseconds(400)
    public static let defaultLongPress: Duration = .milliseconds(800)

    public init(node: NodeID, line: Int, activeLow: Bool = true, bias: InputBias = .pullUp, debounce: Duration = GPIOInput.defaultDebounce,
                deviceClass: String? = nil, doublePress: Duration = GPIOInput.defaultDoublePress,
                longPress: Duration = GPIOInput.defaultLongPress) {
        self.node = node
        self.line = line
        self.activeLow = activeLow
        self.bias = bias
        self.debounce = debounce
        self.deviceClass = deviceClass
        self.doublePress = doublePress
        self.longPress = longPress
    }
}

/// The pull resistor a line is requested with.
public enum InputBias: String, Sendable, Equatable, CaseIterable {
    case pullUp = "pull-up"
    case pullDown = "pull-down"
    /// No pull: the wiring has its own resistor.
    case disabled = "none"
}

/// How a button was pressed.
public enum ButtonPress: String, Sendable, Equatable, CaseIterable, Codable {
    case single, double, long
}
