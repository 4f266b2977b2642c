import Foundation

/// Attributes of images and their capture: dimensions, color, camera settings, EXIF.
///
/// Apple's header category: `CSSearchableItemAttributeSet (CSImages)`.
extension CSSearchableItemAttributeSet {
    /// The height of the image or video frame, in pixels.
    ///
    /// Queries may also name it `kMDItemPixelHeight`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/pixelheight>
    public var pixelHeight: NSNumber? {
        get { _number("pixelHeight") }
        set { _setNumber("pixelHeight", newValue) }
    }

    /// The width of the image or video frame, in pixels.
    ///
    /// Queries may also name it `kMDItemPixelWidth`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/pixelwidth>
    public var pixelWidth: NSNumber? {
        get { _number("pixelWidth") }
        set { _setNumber("pixelWidth", newValue) }
    }

    /// The total number of pixels.
    ///
    /// Queries may also name it `kMDItemPixelCount`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/pixelcount>
    public var pixelCount: NSNumber? {
        get { _number("pixelCount") }
        set { _setNumber("pixelCount", newValue) }
    }

    /// The color space model, such as RGB or CMYK.
    ///
    /// Queries may also name it `kMDItemColorSpace`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/colorspace>
    public var colorSpace: String? {
        get { _string("colorSpace") }
        set { _setString("colorSpace", newValue) }
    }

    /// The number of bits per sample, such as an image's bit depth.
    ///
    /// Queries may also name it `kMDItemBitsPerSample`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/bitspersample>
    public var bitsPerSample: NSNumber? {
        get { _number("bitsPerSample") }
        set { _setNumber("bitsPerSample", newValue) }
    }

    /// Whether the flash fired, as a Boolean number.
    ///
    /// Queries may also name it `kMDItemFlashOnOff`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/flashon>
    public var flashOn: NSNumber? {
        get { _number("flashOn") }
        set { _setNumber("flashOn", newValue) }
    }

    /// The actual focal length of the lens, in millimeters.
    ///
    /// Queries may also name it `kMDItemFocalLength`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/focallength>
    public var focalLength: NSNumber? {
        get { _number("focalLength") }
        set { _setNumber("focalLength", newValue) }
    }

    /// Whether the focal length is 35 mm, as a Boolean number.
    ///
    /// Queries may also name it `kMDItemFocalLength35mm`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/focallength35mm>
    public var focalLength35mm: NSNumber? {
        get { _number("focalLength35mm") }
        set { _setNumber("focalLength35mm", newValue) }
    }

    /// The manufacturer of the device that captured the item.
    ///
    /// Queries may also name it `kMDItemAcquisitionMake`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/acquisitionmake>
    public var acquisitionMake: String? {
        get { _string("acquisitionMake") }
        set { _setString("acquisitionMake", newValue) }
    }

    /// The model of the device that captured the item.
    ///
    /// Queries may also name it `kMDItemAcquisitionModel`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/acquisitionmodel>
    public var acquisitionModel: String? {
        get { _string("acquisitionModel") }
        set { _setString("acquisitionModel", newValue) }
    }

    /// The owner of the camera that took the picture.
    ///
    /// Queries may also name it `kMDItemCameraOwner`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/cameraowner>
    public var cameraOwner: String? {
        get { _string("cameraOwner") }
        set { _setString("cameraOwner", newValue) }
    }

    /// The model of the lens that took the picture.
    ///
    /// Queries may also name it `kMDItemLensModel`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/lensmodel>
    public var lensModel: String? {
        get { _string("lensModel") }
        set { _setString("lensModel", newValue) }
    }

    /// The ISO speed the camera was set to, such as 100 or 400.
    ///
    /// The Objective-C name is `ISOSpeed`. Queries may also name it `kMDItemISOSpeed`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/isospeed>
    public var isoSpeed: NSNumber? {
        get { _number("isoSpeed") }
        set { _setNumber("isoSpeed", newValue) }
    }

    /// The orientation: 0 for landscape, 1 for portrait.
    ///
    /// Queries may also name it `kMDItemOrientation`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/orientation>
    public var orientation: NSNumber? {
        get { _number("orientation") }
        set { _setNumber("orientation", newValue) }
    }

    /// The names of the layers in the file.
    ///
    /// Queries may also name it `kMDItemLayerNames`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/layernames>
    public var layerNames: [String]? {
        get { _strings("layerNames") }
        set { _setStrings("layerNames", newValue) }
    }

    /// The white balance setting: 0 for auto, 1 for manual.
    ///
    /// Queries may also name it `kMDItemWhiteBalance`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/whitebalance>
    public var whiteBalance: NSNumber? {
        get { _number("whiteBalance") }
        set { _setNumber("whiteBalance", newValue) }
    }

    /// The lens aperture, as a log-scale APEX value.
    ///
    /// Queries may also name it `kMDItemAperture`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/aperture>
    public var aperture: NSNumber? {
        get { _number("aperture") }
        set { _setNumber("aperture", newValue) }
    }

    /// The name of the image's color profile.
    ///
    /// Queries may also name it `kMDItemProfileName`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/profilename>
    public var profileName: String? {
        get { _string("profileName") }
        set { _setString("profileName", newValue) }
    }

    /// The horizontal resolution, in dots per inch.
    ///
    /// Queries may also name it `kMDItemResolutionWidthDPI`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/resolutionwidthdpi>
    public var resolutionWidthDPI: NSNumber? {
        get { _number("resolutionWidthDPI") }
        set { _setNumber("resolutionWidthDPI", newValue) }
    }

    /// The vertical resolution, in dots per inch.
    ///
    /// Queries may also name it `kMDItemResolutionHeightDPI`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/resolutionheightdpi>
    public var resolutionHeightDPI: NSNumber? {
        get { _number("resolutionHeightDPI") }
        set { _setNumber("resolutionHeightDPI", newValue) }
    }

    /// The exposure mode: 0 for auto, 1 for manual, 2 for auto bracket.
    ///
    /// Queries may also name it `kMDItemExposureMode`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/exposuremode>
    public var exposureMode: NSNumber? {
        get { _number("exposureMode") }
        set { _setNumber("exposureMode", newValue) }
    }

    /// The time the shutter was open, in seconds.
    ///
    /// Queries may also name it `kMDItemExposureTimeSeconds`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/exposuretime>
    public var exposureTime: NSNumber? {
        get { _number("exposureTime") }
        set { _setNumber("exposureTime", newValue) }
    }

    /// The version of the EXIF header the metadata came from.
    ///
    /// The Objective-C name is `EXIFVersion`. Queries may also name it `kMDItemEXIFVersion`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/exifversion>
    public var exifVersion: String? {
        get { _string("exifVersion") }
        set { _setString("exifVersion", newValue) }
    }

    /// The version of the EXIF GPS header the metadata came from.
    ///
    /// The Objective-C name is `EXIFGPSVersion`. Queries may also name it `kMDItemEXIFGPSVersion`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/exifgpsversion>
    public var exifgpsVersion: String? {
        get { _string("exifgpsVersion") }
        set { _setString("exifgpsVersion", newValue) }
    }

    /// Whether the image has an alpha channel, as a Boolean number.
    ///
    /// Queries may also name it `kMDItemHasAlphaChannel`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/hasalphachannel>
    public var hasAlphaChannel: NSNumber? {
        get { _number("hasAlphaChannel") }
        set { _setNumber("hasAlphaChannel", newValue) }
    }

    /// Whether red-eye reduction was used, as a Boolean number.
    ///
    /// Queries may also name it `kMDItemRedEyeOnOff`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/redeyeon>
    public var redEyeOn: NSNumber? {
        get { _number("redEyeOn") }
        set { _setNumber("redEyeOn", newValue) }
    }

    /// The metering mode, such as average or pattern.
    ///
    /// Queries may also name it `kMDItemMeteringMode`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/meteringmode>
    public var meteringMode: String? {
        get { _string("meteringMode") }
        set { _setString("meteringMode", newValue) }
    }

    /// The smallest f-number of the lens, as an APEX value.
    ///
    /// Queries may also name it `kMDItemMaxAperture`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/maxaperture>
    public var maxAperture: NSNumber? {
        get { _number("maxAperture") }
        set { _setNumber("maxAperture", newValue) }
    }

    /// The f-number: the focal length divided by the aperture diameter.
    ///
    /// Queries may also name it `kMDItemFNumber`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/fnumber>
    public var fNumber: NSNumber? {
        get { _number("fNumber") }
        set { _setNumber("fNumber", newValue) }
    }

    /// The exposure program, such as manual or aperture priority.
    ///
    /// Queries may also name it `kMDItemExposureProgram`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/exposureprogram>
    public var exposureProgram: String? {
        get { _string("exposureProgram") }
        set { _setString("exposureProgram", newValue) }
    }

    /// The exposure time as text, such as "1/250 seconds".
    ///
    /// Queries may also name it `kMDItemExposureTimeString`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/exposuretimestring>
    public var exposureTimeString: String? {
        get { _string("exposureTimeString") }
        set { _setString("exposureTimeString", newValue) }
    }
}
