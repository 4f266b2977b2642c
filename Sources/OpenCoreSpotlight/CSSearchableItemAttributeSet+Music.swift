import Foundation

/// Attributes of music: audio format, tempo, key, composer, album, artist, genre, instruments.
///
/// Apple's header category: `CSSearchableItemAttributeSet (CSMusic)`.
extension CSSearchableItemAttributeSet {
    /// The sample rate of the audio, in hertz (audio frames per second).
    ///
    /// Queries may also name it `kMDItemAudioSampleRate`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/audiosamplerate>
    public var audioSampleRate: NSNumber? {
        get { _number("audioSampleRate") }
        set { _setNumber("audioSampleRate", newValue) }
    }

    /// The number of discrete audio channels.
    ///
    /// Queries may also name it `kMDItemAudioChannelCount`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/audiochannelcount>
    public var audioChannelCount: NSNumber? {
        get { _number("audioChannelCount") }
        set { _setNumber("audioChannelCount", newValue) }
    }

    /// The tempo of the music, in beats per minute.
    ///
    /// Queries may also name it `kMDItemTempo`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/tempo>
    public var tempo: NSNumber? {
        get { _number("tempo") }
        set { _setNumber("tempo", newValue) }
    }

    /// The musical key, such as C, Dm or F#m.
    ///
    /// Queries may also name it `kMDItemKeySignature`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/keysignature>
    public var keySignature: String? {
        get { _string("keySignature") }
        set { _setString("keySignature", newValue) }
    }

    /// The time signature, such as 4/4 or 7/8.
    ///
    /// Queries may also name it `kMDItemTimeSignature`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/timesignature>
    public var timeSignature: String? {
        get { _string("timeSignature") }
        set { _setString("timeSignature", newValue) }
    }

    /// The application that encoded the audio.
    ///
    /// Queries may also name it `kMDItemAudioEncodingApplication`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/audioencodingapplication>
    public var audioEncodingApplication: String? {
        get { _string("audioEncodingApplication") }
        set { _setString("audioEncodingApplication", newValue) }
    }

    /// The composer of the music.
    ///
    /// Queries may also name it `kMDItemComposer`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/composer>
    public var composer: String? {
        get { _string("composer") }
        set { _setString("composer", newValue) }
    }

    /// The writer of the lyrics.
    ///
    /// Queries may also name it `kMDItemLyricist`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/lyricist>
    public var lyricist: String? {
        get { _string("lyricist") }
        set { _setString("lyricist", newValue) }
    }

    /// The title of the collection the item belongs to, such as a record or photo album.
    ///
    /// Queries may also name it `kMDItemAlbum`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/album>
    public var album: String? {
        get { _string("album") }
        set { _setString("album", newValue) }
    }

    /// The artist of the media.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/artist>
    public var artist: String? {
        get { _string("artist") }
        set { _setString("artist", newValue) }
    }

    /// The track number of a song within its album.
    ///
    /// Queries may also name it `kMDItemAudioTrackNumber`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/audiotracknumber>
    public var audioTrackNumber: NSNumber? {
        get { _number("audioTrackNumber") }
        set { _setNumber("audioTrackNumber", newValue) }
    }

    /// The date the work was recorded, as opposed to when this edition was made.
    ///
    /// Queries may also name it `kMDItemRecordingDate`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/recordingdate>
    public var recordingDate: Date? {
        get { _date("recordingDate") }
        set { _setDate("recordingDate", newValue) }
    }

    /// The musical genre, such as jazz or classical.
    ///
    /// Queries may also name it `kMDItemMusicalGenre`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/musicalgenre>
    public var musicalGenre: String? {
        get { _string("musicalGenre") }
        set { _setString("musicalGenre", newValue) }
    }

    /// Whether the MIDI sequence is set up for a General MIDI device, as a Boolean number.
    ///
    /// Queries may also name it `kMDItemIsGeneralMIDISequence`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/generalmidisequence>
    public var generalMIDISequence: NSNumber? {
        get { _number("generalMIDISequence") }
        set { _setNumber("generalMIDISequence", newValue) }
    }

    /// The category of the instrument, such as keyboards.
    ///
    /// Queries may also name it `kMDItemMusicalInstrumentCategory`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/musicalinstrumentcategory>
    public var musicalInstrumentCategory: String? {
        get { _string("musicalInstrumentCategory") }
        set { _setString("musicalInstrumentCategory", newValue) }
    }

    /// The name of the instrument within its category, such as piano.
    ///
    /// Queries may also name it `kMDItemMusicalInstrumentName`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/musicalinstrumentname>
    public var musicalInstrumentName: String? {
        get { _string("musicalInstrumentName") }
        set { _setString("musicalInstrumentName", newValue) }
    }
}
