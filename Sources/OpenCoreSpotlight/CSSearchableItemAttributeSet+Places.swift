import Foundation

/// Attributes of places: address, coordinates, speed, direction, GPS details.
///
/// Apple's header category: `CSSearchableItemAttributeSet (CSPlaces)`.
extension CSSearchableItemAttributeSet {
    /// A publishable synopsis of the item's contents.
    ///
    /// Queries may also name it `kMDItemHeadline`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/headline>
    public var headline: String? {
        get { _string("headline") }
        set { _setString("headline", newValue) }
    }

    /// Editorial instructions about the item's use, such as embargoes and warnings.
    ///
    /// Queries may also name it `kMDItemInstructions`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/instructions>
    public var instructions: String? {
        get { _string("instructions") }
        set { _setString("instructions", newValue) }
    }

    /// The street of the item's location.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/thoroughfare>
    public var thoroughfare: String? {
        get { _string("thoroughfare") }
        set { _setString("thoroughfare", newValue) }
    }

    /// The street number of the item's location.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/subthoroughfare>
    public var subThoroughfare: String? {
        get { _string("subThoroughfare") }
        set { _setString("subThoroughfare", newValue) }
    }

    /// The postal code of the item's location.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/postalcode>
    public var postalCode: String? {
        get { _string("postalCode") }
        set { _setString("postalCode", newValue) }
    }

    /// The city of the item's location.
    ///
    /// Queries may also name it `kMDItemCity`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/city>
    public var city: String? {
        get { _string("city") }
        set { _setString("city", newValue) }
    }

    /// The state or province of the item's location.
    ///
    /// Queries may also name it `kMDItemStateOrProvince`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/stateorprovince>
    public var stateOrProvince: String? {
        get { _string("stateOrProvince") }
        set { _setString("stateOrProvince", newValue) }
    }

    /// The country or region of the item's location.
    ///
    /// Queries may also name it `kMDItemCountry`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/country>
    public var country: String? {
        get { _string("country") }
        set { _setString("country", newValue) }
    }

    /// The full postal address of the item's location.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/fullyformattedaddress>
    public var fullyFormattedAddress: String? {
        get { _string("fullyFormattedAddress") }
        set { _setString("fullyFormattedAddress", newValue) }
    }

    /// The altitude, in meters above sea level (WGS 84); negative below sea level.
    ///
    /// Queries may also name it `kMDItemAltitude`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/altitude>
    public var altitude: NSNumber? {
        get { _number("altitude") }
        set { _setNumber("altitude", newValue) }
    }

    /// The latitude, in degrees north of the equator (WGS 84); negative in the south.
    ///
    /// Queries may also name it `kMDItemLatitude`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/latitude>
    public var latitude: NSNumber? {
        get { _number("latitude") }
        set { _setNumber("latitude", newValue) }
    }

    /// The longitude, in degrees east of the prime meridian (WGS 84); negative in the west.
    ///
    /// Queries may also name it `kMDItemLongitude`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/longitude>
    public var longitude: NSNumber? {
        get { _number("longitude") }
        set { _setNumber("longitude", newValue) }
    }

    /// The speed, in kilometers per hour.
    ///
    /// Queries may also name it `kMDItemSpeed`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/speed>
    public var speed: NSNumber? {
        get { _number("speed") }
        set { _setNumber("speed", newValue) }
    }

    /// When the event the item captures took place.
    ///
    /// Queries may also name it `kMDItemTimestamp`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/timestamp>
    public var timestamp: Date? {
        get { _date("timestamp") }
        set { _setDate("timestamp", newValue) }
    }

    /// The direction the image faces, in degrees from true north.
    ///
    /// Queries may also name it `kMDItemImageDirection`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/imagedirection>
    public var imageDirection: NSNumber? {
        get { _number("imageDirection") }
        set { _setNumber("imageDirection", newValue) }
    }

    /// The name of the place or point of interest.
    ///
    /// Queries may also name it `kMDItemNamedLocation`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/namedlocation>
    public var namedLocation: String? {
        get { _string("namedLocation") }
        set { _setString("namedLocation", newValue) }
    }

    /// The direction of travel, in degrees from true north.
    ///
    /// The Objective-C name is `GPSTrack`. Queries may also name it `kMDItemGPSTrack`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/gpstrack>
    public var gpsTrack: NSNumber? {
        get { _number("gpsTrack") }
        set { _setNumber("gpsTrack", newValue) }
    }

    /// The status of the GPS receiver.
    ///
    /// The Objective-C name is `GPSStatus`. Queries may also name it `kMDItemGPSStatus`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/gpsstatus>
    public var gpsStatus: String? {
        get { _string("gpsStatus") }
        set { _setString("gpsStatus", newValue) }
    }

    /// The GPS measurement mode.
    ///
    /// The Objective-C name is `GPSMeasureMode`. Queries may also name it `kMDItemGPSMeasureMode`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/gpsmeasuremode>
    public var gpsMeasureMode: String? {
        get { _string("gpsMeasureMode") }
        set { _setString("gpsMeasureMode", newValue) }
    }

    /// The GPS dilution of precision.
    ///
    /// The Objective-C name is `GPSDOP`. Queries may also name it `kMDItemGPSDOP`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/gpsdop>
    public var gpsdop: NSNumber? {
        get { _number("gpsdop") }
        set { _setNumber("gpsdop", newValue) }
    }

    /// The geodetic datum the GPS receiver used.
    ///
    /// The Objective-C name is `GPSMapDatum`. Queries may also name it `kMDItemGPSMapDatum`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/gpsmapdatum>
    public var gpsMapDatum: String? {
        get { _string("gpsMapDatum") }
        set { _setString("gpsMapDatum", newValue) }
    }

    /// The latitude of the destination.
    ///
    /// The Objective-C name is `GPSDestLatitude`. Queries may also name it `kMDItemGPSDestLatitude`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/gpsdestlatitude>
    public var gpsDestLatitude: NSNumber? {
        get { _number("gpsDestLatitude") }
        set { _setNumber("gpsDestLatitude", newValue) }
    }

    /// The longitude of the destination.
    ///
    /// The Objective-C name is `GPSDestLongitude`. Queries may also name it `kMDItemGPSDestLongitude`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/gpsdestlongitude>
    public var gpsDestLongitude: NSNumber? {
        get { _number("gpsDestLongitude") }
        set { _setNumber("gpsDestLongitude", newValue) }
    }

    /// The bearing to the destination.
    ///
    /// The Objective-C name is `GPSDestBearing`. Queries may also name it `kMDItemGPSDestBearing`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/gpsdestbearing>
    public var gpsDestBearing: NSNumber? {
        get { _number("gpsDestBearing") }
        set { _setNumber("gpsDestBearing", newValue) }
    }

    /// The distance to the destination.
    ///
    /// The Objective-C name is `GPSDestDistance`. Queries may also name it `kMDItemGPSDestDistance`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/gpsdestdistance>
    public var gpsDestDistance: NSNumber? {
        get { _number("gpsDestDistance") }
        set { _setNumber("gpsDestDistance", newValue) }
    }

    /// The method the GPS receiver used to find the location.
    ///
    /// The Objective-C name is `GPSProcessingMethod`. Queries may also name it `kMDItemGPSProcessingMethod`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/gpsprocessingmethod>
    public var gpsProcessingMethod: String? {
        get { _string("gpsProcessingMethod") }
        set { _setString("gpsProcessingMethod", newValue) }
    }

    /// The name of the GPS area.
    ///
    /// The Objective-C name is `GPSAreaInformation`. Queries may also name it `kMDItemGPSAreaInformation`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/gpsareainformation>
    public var gpsAreaInformation: String? {
        get { _string("gpsAreaInformation") }
        set { _setString("gpsAreaInformation", newValue) }
    }

    /// The date and time of the GPS fix.
    ///
    /// The Objective-C name is `GPSDateStamp`. Queries may also name it `kMDItemGPSDateStamp`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/gpsdatestamp>
    public var gpsDateStamp: Date? {
        get { _date("gpsDateStamp") }
        set { _setDate("gpsDateStamp", newValue) }
    }

    /// Whether differential correction was applied to the GPS fix (Apple's spelling).
    ///
    /// The Objective-C name is `GPSDifferental`. Queries may also name it `kMDItemGPSDifferental`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/gpsdifferental>
    public var gpsDifferental: NSNumber? {
        get { _number("gpsDifferental") }
        set { _setNumber("gpsDifferental", newValue) }
    }
}
