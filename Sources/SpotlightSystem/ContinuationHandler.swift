import Foundation
import OpenCoreSpotlight

#if !canImport(Darwin)
/// The app side of continuation: what `application(_:continue:restorationHandler:)` and SwiftUI's
/// `onContinueUserActivity(_:perform:)` are on Apple's systems.
///
/// ```swift
/// let continuation = ContinuationHandler()
/// continuation.onContinueUserActivity(CSSearchableItemActionType) { activity in
///     let id = activity.userInfo?[CSSearchableItemActivityIdentifier] as? String
///     showEmployee(id)
/// }
/// continuation.onContinueUserActivity("com.example.colleagues.view-employee") { activity in
///     showEmployee(activity.userInfo?["id"] as? String)
/// }
/// if await continuation.handleLaunchArguments(CommandLine.arguments) { exit(0) }
/// ```
///
/// When the person chooses a result in `spotlight`, the system launches the app's registered `Exec` with a
/// continuation URL (`openspotlight://continue?activity=…`); `handleLaunchArguments` finds it (or
/// `--continue-activity <payload>`), rebuilds the `NSUserActivity` and calls the handler registered for its type:
/// a Core Spotlight item arrives as `CSSearchableItemActionType` with `userInfo[CSSearchableItemActivityIdentifier]`,
/// a saved activity as itself (type and `userInfo`), a continued search as `CSQueryContinuationActionType` with
/// `userInfo[CSSearchQueryString]`. A continuation addressed to another app is refused.
@MainActor
public final class ContinuationHandler {
    /// The app whose continuations are accepted.
    public let applicationIdentifier: String
    private var handlers: [String: @MainActor (NSUserActivity) async -> Void] = [:]

    /// Asked first with the activity type, as `application(_:willContinueUserActivityWithType:)`; return `false`
    /// to let the fallback decide.
    public var willContinueUserActivity: (@MainActor (String) -> Bool)?

    /// Called for activity types with no registered handler, as `application(_:continue:restorationHandler:)`:
    /// return whether the app handled the activity.
    public var fallback: (@MainActor (NSUserActivity) async -> Bool)?

    /// The command-line option that may precede a continuation payload.
    public nonisolated static let argument = "--continue-activity"

    public init(applicationIdentifier: String = OpenSpotlight.applicationIdentifier) {
        self.applicationIdentifier = applicationIdentifier
    }

    /// Registers what to do with activities of a type (replacing an earlier handler for it).
    public func onContinueUserActivity(_ activityType: String, perform action: @escaping @MainActor (NSUserActivity) async -> Void) {
        handlers[activityType] = action
    }

    /// Continues an activity: the handler registered for its type, else `fallback`. Returns whether it was handled.
    @discardableResult
    public func `continue`(_ activity: NSUserActivity) async -> Bool {
        if let willContinueUserActivity, !willContinueUserActivity(activity.activityType) {
            return await fallback?(activity) ?? false
        }
        if let handler = handlers[activity.activityType] {
            await handler(activity)
            return true
        }
        return await fallback?(activity) ?? false
    }

    /// Finds a continuation in the launch arguments and continues it. Returns `false` when there is none, when
    /// it is addressed to another app or unreadable (with a message on standard error), or when nothing handled it.
    public func handleLaunchArguments(_ arguments: [String]) async -> Bool {
        let payload: ContinuationPayload
        do {
            guard let found = try Self.payload(inLaunchArguments: arguments) else { return false }
            payload = found
        } catch {
            FileHandle.standardError.write(Data("\(error)\n".utf8))
            return false
        }
        guard payload.applicationIdentifier == applicationIdentifier else {
            FileHandle.standardError.write(Data(
                "this continuation is for \(payload.applicationIdentifier), not \(applicationIdentifier); ignored\n".utf8))
            return false
        }
        return await self.continue(payload.makeUserActivity())
    }

    /// The continuation in launch arguments: an argument that is a continuation URL, or the argument after
    /// `--continue-activity` (a URL, base64url JSON, JSON or a file path). `nil` when there is none.
    public nonisolated static func payload(inLaunchArguments arguments: [String]) throws -> ContinuationPayload? {
        for (i, argument) in arguments.enumerated().dropFirst() {
            if argument == Self.argument {
                guard i + 1 < arguments.count else { throw SystemError("\(Self.argument) needs a payload") }
                return try ContinuationPayload.parse(arguments[i + 1])
            }
            if argument.hasPrefix(Self.argument + "=") {
                return try ContinuationPayload.parse(String(argument.dropFirst(Self.argument.count + 1)))
            }
            if argument.hasPrefix("\(ContinuationPayload.scheme)://\(ContinuationPayload.host)") {
                return try ContinuationPayload.parse(argument)
            }
        }
        return nil
    }

    /// Whether the launch arguments carry a continuation (readable or not).
    public nonisolated static func containsContinuation(_ arguments: [String]) -> Bool {
        arguments.dropFirst().contains {
            $0 == argument || $0.hasPrefix(argument + "=") || $0.hasPrefix("\(ContinuationPayload.scheme)://")
        }
    }
}
#endif
