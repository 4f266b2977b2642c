import Logging

/// The engine's log (swift-log): what an operator should know happened to an index without being asked — format
/// upgrades, recoveries. An app chooses where it goes with `LoggingSystem.bootstrap`; by default swift-log writes
/// to standard error.
package enum EngineLog {
    package static let logger = Logger(label: "OpenSpotlight.SpotlightEngine")
}
