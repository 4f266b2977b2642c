import Foundation
import SpotlightEngine

// MARK: - Well-known mailbox identifiers

// Apple does not document the values of these constants. Apple's own Spotlight code tests mailbox identifiers
// against "mailbox.junk", so the values follow that pattern; apps should compare with the constants, never literals.

/// The identifier of the inbox, for `mailboxIdentifiers`.
///
/// Apple: <https://developer.apple.com/documentation/corespotlight/csmailboxinbox>
public let CSMailboxInbox: String = "mailbox.inbox"

/// The identifier of the drafts mailbox, for `mailboxIdentifiers`.
///
/// Apple: <https://developer.apple.com/documentation/corespotlight/csmailboxdrafts>
public let CSMailboxDrafts: String = "mailbox.drafts"

/// The identifier of the sent-messages mailbox, for `mailboxIdentifiers`.
///
/// Apple: <https://developer.apple.com/documentation/corespotlight/csmailboxsent>
public let CSMailboxSent: String = "mailbox.sent"

/// The identifier of the junk mailbox, for `mailboxIdentifiers`.
///
/// Apple: <https://developer.apple.com/documentation/corespotlight/csmailboxjunk>
public let CSMailboxJunk: String = "mailbox.junk"

/// The identifier of the trash mailbox, for `mailboxIdentifiers`.
///
/// Apple: <https://developer.apple.com/documentation/corespotlight/csmailboxtrash>
public let CSMailboxTrash: String = "mailbox.trash"

/// The identifier of the archive mailbox, for `mailboxIdentifiers`.
///
/// Apple: <https://developer.apple.com/documentation/corespotlight/csmailboxarchive>
public let CSMailboxArchive: String = "mailbox.archive"

/// Attributes of messages and e-mail: body, people, headers, mailboxes, addresses.
///
/// Apple's header category: `CSSearchableItemAttributeSet (CSMessaging)`.
extension CSSearchableItemAttributeSet {
    /// The identifier of the account the item belongs to.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/accountidentifier>
    public var accountIdentifier: String? {
        get { _string("accountIdentifier") }
        set { _setString("accountIdentifier", newValue) }
    }

    /// Every handle (e-mail address, phone number…) of the account the item belongs to.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/accounthandles>
    public var accountHandles: [String]? {
        get { _strings("accountHandles") }
        set { _setStrings("accountHandles", newValue) }
    }

    /// The HTML body of the item, as UTF-8 bytes.
    ///
    /// The Objective-C name is `HTMLContentData`. Queries may also name it `kMDItemHTMLContent`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/htmlcontentdata>
    public var htmlContentData: Data? {
        get { _data("htmlContentData") }
        set { _setData("htmlContentData", newValue) }
    }

    /// The plain-text body of the item; the main full-text field.
    ///
    /// Queries may also name it `kMDItemTextContent`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/textcontent>
    public var textContent: String? {
        get { _string("textContent") }
        set { _setString("textContent", newValue) }
    }

    /// The people in the From: field.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/authors>
    public var authors: [CSPerson]? {
        get { _persons("authors") }
        set { _setPersons("authors", newValue) }
    }

    /// The people in the To: field.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/primaryrecipients>
    public var primaryRecipients: [CSPerson]? {
        get { _persons("primaryRecipients") }
        set { _setPersons("primaryRecipients", newValue) }
    }

    /// The people in the Cc: field.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/additionalrecipients>
    public var additionalRecipients: [CSPerson]? {
        get { _persons("additionalRecipients") }
        set { _setPersons("additionalRecipients", newValue) }
    }

    /// The people in the Bcc: field.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/hiddenadditionalrecipients>
    public var hiddenAdditionalRecipients: [CSPerson]? {
        get { _persons("hiddenAdditionalRecipients") }
        set { _setPersons("hiddenAdditionalRecipients", newValue) }
    }

    /// Every header of the message, by name; each value is an array because headers can repeat.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/emailheaders>
    public var emailHeaders: [String: [Any]]? {
        get {
            guard case .array(let headers)? = _value("emailHeaders") else { return nil }
            var result: [String: [Any]] = [:]
            for case .array(let entry) in headers {
                guard case .string(let name)? = entry.first else { continue }
                result[name, default: []] += entry.dropFirst().map(Self._headerObject(from:))
            }
            return result
        }
        set {
            // Stored as one array per header, in name order: the header name, then its values.
            _setValue("emailHeaders", newValue.map { headers in
                .array(headers.keys.sorted().map { name in
                    .array([.string(name)] + (headers[name] ?? []).map(Self._headerValue(from:)))
                })
            })
        }
    }

    /// The mailboxes the item is in, such as `CSMailboxInbox` or an app-defined identifier.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/mailboxidentifiers>
    public var mailboxIdentifiers: [String]? {
        get { _strings("mailboxIdentifiers") }
        set { _setStrings("mailboxIdentifiers", newValue) }
    }

    /// The names of the item's authors; order is kept but carries no meaning.
    ///
    /// Queries may also name it `kMDItemAuthors`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/authornames>
    public var authorNames: [String]? {
        get { _strings("authorNames") }
        set { _setStrings("authorNames", newValue) }
    }

    /// The names of the item's recipients.
    ///
    /// Queries may also name it `kMDItemRecipients`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/recipientnames>
    public var recipientNames: [String]? {
        get { _strings("recipientNames") }
        set { _setStrings("recipientNames", newValue) }
    }

    /// The e-mail addresses of the item's authors.
    ///
    /// Queries may also name it `kMDItemAuthorEmailAddresses`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/authoremailaddresses>
    public var authorEmailAddresses: [String]? {
        get { _strings("authorEmailAddresses") }
        set { _setStrings("authorEmailAddresses", newValue) }
    }

    /// The e-mail addresses of the item's recipients.
    ///
    /// Queries may also name it `kMDItemRecipientEmailAddresses`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/recipientemailaddresses>
    public var recipientEmailAddresses: [String]? {
        get { _strings("recipientEmailAddresses") }
        set { _setStrings("recipientEmailAddresses", newValue) }
    }

    /// The addresses of the item's authors.
    ///
    /// Queries may also name it `kMDItemAuthorAddresses`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/authoraddresses>
    public var authorAddresses: [String]? {
        get { _strings("authorAddresses") }
        set { _setStrings("authorAddresses", newValue) }
    }

    /// The addresses of the item's recipients.
    ///
    /// Queries may also name it `kMDItemRecipientAddresses`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/recipientaddresses>
    public var recipientAddresses: [String]? {
        get { _strings("recipientAddresses") }
        set { _setStrings("recipientAddresses", newValue) }
    }

    /// The phone numbers of the item; see `supportsPhoneCall`.
    ///
    /// Queries may also name it `kMDItemPhoneNumbers`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/phonenumbers>
    public var phoneNumbers: [String]? {
        get { _strings("phoneNumbers") }
        set { _setStrings("phoneNumbers", newValue) }
    }

    /// The e-mail addresses of the item.
    ///
    /// Queries may also name it `kMDItemEmailAddresses`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/emailaddresses>
    public var emailAddresses: [String]? {
        get { _strings("emailAddresses") }
        set { _setStrings("emailAddresses", newValue) }
    }

    /// The instant-message addresses of the item.
    ///
    /// Queries may also name it `kMDItemInstantMessageAddresses`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/instantmessageaddresses>
    public var instantMessageAddresses: [String]? {
        get { _strings("instantMessageAddresses") }
        set { _setStrings("instantMessageAddresses", newValue) }
    }

    /// Whether the item is likely junk, as a Boolean number.
    ///
    /// Queries may also name it `kMDItemIsLikelyJunk`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/likelyjunk>
    public var likelyJunk: NSNumber {
        // Apple's property is non-optional; an attribute set that never had it set reads as 0 (not junk).
        get { _number("likelyJunk") ?? NSNumber(value: false) }
        set { _setNumber("likelyJunk", newValue) }
    }
}

extension CSSearchableItemAttributeSet {
    /// A header value as stored: strings, numbers, dates, data and URLs keep their kind; anything else is stored as
    /// its description.
    fileprivate static func _headerValue(from object: Any) -> AttributeValue {
        if let value = attributeValue(fromObject: object), !value.isArrayValue {
            return value
        }
        return .string(String(describing: object))
    }

    /// A stored header value as the Swift value an app reads back (`String`, `NSNumber`, `Date`, `Data`, `URL`).
    fileprivate static func _headerObject(from value: AttributeValue) -> Any {
        switch value {
        case .string(let s): return s
        case .int(let i): return NSNumber(value: i)
        case .double(let d): return NSNumber(value: d)
        case .bool(let b): return NSNumber(value: b)
        case .date(let d): return d
        case .data(let d): return d
        case .url(let u): return u
        case .person(let p): return CSPerson(p)
        case .localized(let l): return CSLocalizedString._bestLocalization(l) ?? ""
        case .array(let a): return a.map(_headerObject(from:))
        case .null: return NSNull()
        }
    }
}

extension AttributeValue {
    fileprivate var isArrayValue: Bool {
        if case .array = self { return true }
        return false
    }
}

