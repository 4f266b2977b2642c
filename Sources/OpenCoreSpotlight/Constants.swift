import Foundation

/// The activity type an app receives when the user opens one of its Core Spotlight items.
///
/// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemactiontype>
public let CSSearchableItemActionType: String = "com.apple.corespotlightitem"

/// The `userInfo` key whose value is the opened item's `uniqueIdentifier`.
///
/// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemactivityidentifier>
public let CSSearchableItemActivityIdentifier: String = "kCSSearchableItemActivityIdentifier"

/// The activity type an app receives when the user continues a search in the app.
///
/// Apple: <https://developer.apple.com/documentation/corespotlight/csquerycontinuationactiontype>
public let CSQueryContinuationActionType: String = "com.apple.corespotlightquerycontinuation"

/// The `userInfo` key holding the query text of a continued search.
///
/// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchquerystring>
public let CSSearchQueryString: String = "kCSSearchQueryString"

/// The `userInfo` key present when the user chose a custom action of an item.
///
/// Apple: <https://developer.apple.com/documentation/corespotlight/csactionidentifier>
public let CSActionIdentifier: String = "kCSActionIdentifier"

/// The version of the Core Spotlight API this library follows (the value in Apple's shipped headers).
public let CoreSpotlightAPIVersion: Int32 = 40

/// The version of this implementation of Core Spotlight as a number.
///
/// Apple: <https://developer.apple.com/documentation/corespotlight/corespotlightversionnumber>
// Deviation: Apple's value is the framework's build version (2333.x on iOS 18); ours is OpenSpotlight's own
// version, which only grows. A global `var` as in Apple's header, never written here.
nonisolated(unsafe) public var CoreSpotlightVersionNumber: Double = 0.6

/// The version of this implementation of Core Spotlight as a NUL-terminated C string.
///
/// Apple: <https://developer.apple.com/documentation/corespotlight/corespotlightversionstring>
nonisolated(unsafe) public let CoreSpotlightVersionString: UnsafePointer<UInt8> = ("OpenSpotlight-0.6" as StaticString).utf8Start
