// swift-tools-version: 6.1
import PackageDescription

// housectl: a smart-home controller for the Raspberry Pi.
// One target per subsystem; see docs/ARCHITECTURE.md for how they fit.

/// What HAP is made of, for the bridge and for the controller's side the tests and the bench use:
/// Ed25519, X25519, HKDF-SHA512, ChaCha20-Poly1305 and SHA-512, big integers for SRP-6a, sockets.
let hapLibraries: [Target.Dependency] = [
    .product(name: "Crypto", package: "swift-crypto"),
    .product(name: "BigInt", package: "BigInt"),
    .product(name: "NIOCore", package: "swift-nio"),
    .product(name: "NIOPosix", package: "swift-nio"),
]

let package = Package(
    name: "housectl",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "housectl", targets: ["housectl"]),
        .executable(name: "housectl-bench", targets: ["housectl-bench"]),
        .library(name: "MQTTTopics", targets: ["MQTTTopics"]),
        .library(name: "HouseCore", targets: ["HouseCore"]),
        .library(name: "HouseMQTT", targets: ["HouseMQTT"]),
        .library(name: "HouseBroker", targets: ["HouseBroker"]),
        .library(name: "HouseGPIO", targets: ["HouseGPIO"]),
        .library(name: "HouseDaemon", targets: ["HouseDaemon"]),
        .library(name: "HouseWeb", targets: ["HouseWeb"]),
        .library(name: "HouseHomeKit", targets: ["HouseHomeKit"]),
        .library(name: "HouseBrokerTesting", targets: ["HouseBrokerTesting"]),
        .library(name: "HouseTesting", targets: ["HouseTesting"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.0.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.0"),
        // The page on the Pi (HouseWeb): Hummingbird 2 without its optional traits, and bcrypt.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.0", traits: []),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
        // TLS on the broker's listener (HouseBroker).
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.30.0"),
        // HomeKit (HouseHomeKit): Ed25519, X25519, HKDF-SHA512, ChaCha20-Poly1305, SHA-512; big integers for SRP-6a.
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/attaswift/BigInt", from: "6.0.1"),
    ],
    targets: [
        // MARK: C libraries (system-library targets with shim.h, and one C target of our own)
        .systemLibrary(
            name: "CMosquitto",
            pkgConfig: "libmosquitto",
            providers: [.apt(["libmosquitto-dev"])]
        ),
        .systemLibrary(
            name: "CGPIOD",
            pkgConfig: "libgpiod",
            providers: [.apt(["libgpiod-dev"])]
        ),
        // The HomeKit bridge's DNS-SD announcement (through avahi-daemon) and its setup QR code.
        // libavahi-client-dev without pkgConfig: its -D_REENTRANT is a flag SwiftPM refuses (with a
        // warning at every build); the headers are in /usr/include and the module map links the libraries.
        .systemLibrary(name: "CAvahi"),
        .systemLibrary(
            name: "CQRencode",
            pkgConfig: "libqrencode",
            providers: [.apt(["libqrencode-dev"])]
        ),

        // MARK: MQTT topic names and filters: validation and matching for client, broker and controller
        .target(name: "MQTTTopics"),
        // One-shot values and wake-up flags that tasks await (every subsystem's one way to wait).
        .target(name: "Signals"),

        // MARK: Pure domain: model, config, intents, the engine, phrases, time windows, scheduler
        .target(
            name: "HouseCore",
            dependencies: ["MQTTTopics", "Signals", .product(name: "Yams", package: "Yams")]
        ),

        // MARK: Subsystems
        .target(
            name: "HouseMQTT",
            dependencies: [
                "CMosquitto", "MQTTTopics", "Signals",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "DequeModule", package: "swift-collections"),
            ]
        ),
        .target(
            name: "HouseBroker",
            dependencies: [
                "MQTTTopics",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "HouseGPIO",
            dependencies: ["CGPIOD", "HouseCore", "Signals", .product(name: "Logging", package: "swift-log")]
        ),

        // MARK: Composition: router -> bus -> engine -> store and broker; timers, discovery, coordination, routines
        .target(
            name: "HouseDaemon",
            dependencies: [
                "HouseCore", "HouseMQTT", "HouseBroker", "HouseGPIO", "MQTTTopics", "Signals",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "DequeModule", package: "swift-collections"),
            ]
        ),

        // MARK: The page on the Pi: the house, a phrase box, the day as a picture (Hummingbird)
        .target(
            name: "HouseWeb",
            dependencies: [
                "HouseCore", "HouseDaemon", "HouseMQTT", "HouseHomeKit",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),

        // MARK: Apple Home: the HomeKit Accessory Protocol over IP (a bridge of the house's devices)
        .target(
            name: "HouseHomeKit",
            dependencies: [
                "HouseCore", "HouseDaemon", "Signals", "CAvahi", "CQRencode",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ] + hapLibraries
        ),

        // MARK: Fakes and fixtures shared by the tests
        // The bridge's fake house (HomeKit writes and state changes in memory) and a controller's side of HAP
        // (pairing, an encrypted session) for the tests and the bench.
        .target(name: "HouseHomeKitTesting", dependencies: ["HouseHomeKit", "HouseCore"] + hapLibraries),
        // The broker's inspection and fault injection, on its `package` hooks (not shipped in HouseBroker).
        .target(name: "HouseBrokerTesting", dependencies: ["HouseBroker"]),
        .target(
            name: "HouseTesting",
            dependencies: [
                "HouseCore", "HouseMQTT", "HouseBroker", "HouseBrokerTesting", "HouseGPIO", "HouseDaemon",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // MARK: The CLI: argument parsing only
        .executableTarget(
            name: "housectl",
            dependencies: [
                "HouseDaemon", "HouseCore", "HouseGPIO", "HouseMQTT", "HouseBroker", "HouseWeb", "HouseHomeKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // MARK: The HomeKit bridge on a fake house, for the aiohomekit test (Tests/HomeKit)
        .executableTarget(name: "housectl-homekit-fixture", dependencies: ["HouseHomeKit", "HouseHomeKitTesting", "HouseCore"]),

        // MARK: The in-VM GPIO test program of `make test-vm` (Tests/VM)
        .executableTarget(name: "housectl-gpio-vmtest", dependencies: ["HouseGPIO", "HouseCore"]),

        // MARK: Benchmarks against the peers (`make bench`)
        .executableTarget(
            name: "housectl-bench",
            dependencies: [
                "HouseDaemon", "HouseTesting", "HouseMQTT", "Signals", "HouseHomeKit", "HouseHomeKitTesting",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),

        // MARK: Tests (one target per module; real-mosquitto tests in their own target)
        .testTarget(name: "MQTTTopicsTests", dependencies: ["MQTTTopics"]),
        .testTarget(name: "SignalsTests", dependencies: ["Signals"]),
        .testTarget(
            name: "HouseCoreTests",
            dependencies: ["HouseCore", "HouseTesting", .product(name: "PropertyBased", package: "swift-property-based")]
        ),
        .testTarget(name: "HouseMQTTTests", dependencies: ["HouseMQTT", "HouseBroker", "HouseTesting"]),
        .testTarget(name: "HouseMQTTMosquittoTests", dependencies: ["HouseMQTT", "HouseTesting"]),
        .testTarget(
            name: "HouseBrokerTests",
            dependencies: [
                "HouseBroker", "HouseBrokerTesting", "HouseMQTT", "HouseTesting", "MQTTTopics",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "HouseGPIOTests",
            dependencies: [
                "HouseGPIO", "HouseTesting",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "HouseDaemonTests",
            dependencies: ["HouseDaemon", "HouseBroker", "HouseTesting", "Signals", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        .testTarget(
            name: "HouseWebTests",
            dependencies: [
                "HouseWeb", "HouseTesting", "HouseHomeKit",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ]
        ),
        .testTarget(
            name: "HouseHomeKitTests",
            dependencies: [
                "HouseHomeKit", "HouseHomeKitTesting", "HouseCore", "HouseTesting",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "BigInt", package: "BigInt"),
            ]
        ),
        .testTarget(name: "housectlTests", dependencies: ["housectl", "HouseTesting", "HouseWeb", "HouseHomeKit", "Signals"]),
        .testTarget(name: "housectl-benchTests", dependencies: ["housectl-bench", "HouseTesting"]),
    ]
)

// Debug links with lld: the test bundle, two hundred megabytes with its
// debug information, links in 10 s instead of 23 with the default linker, at every `swift build`.
for target in package.targets where target.type == .test || target.type == .executable {
    target.linkerSettings = (target.linkerSettings ?? []) + [.unsafeFlags(["-use-ld=lld"], .when(platforms: [.linux], configuration: .debug))]
}
