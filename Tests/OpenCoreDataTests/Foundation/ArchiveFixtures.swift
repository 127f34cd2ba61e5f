@testable import OpenCoreData

/// Keyed archives for the value transformer tests, as base64.
///
/// The `apple…` archives were written by Apple's NSKeyedArchiver on Apple platforms and copied out of store files
/// in the corpus (provenance on each). The `handBuilt…` archives were laid out by hand following the NSKeyedArchiver
/// format as Apple writes it — `$archiver` "NSKeyedArchiver", `$version` 100000, `$top` {root: UID 1}, `$objects`
/// starting with "$null", each class described once by `$classname`/`$classes` with Apple's class names and
/// superclass lists, strings, numbers and data inline — for the Foundation classes Core Data's transformable
/// attributes hold, and encoded as binary property lists (with Python's `plistlib`, independent of Foundation).
enum ArchiveFixtures {
    static func data(_ base64: String) -> Data {
        Data(base64Encoded: base64, options: .ignoreUnknownCharacters)!
    }

    /// 348 bytes: an `NSMutableDictionary` `["CDProfile": <32 bytes>]` written by Apple's Core Data (CloudKit
    /// mirroring metadata). From the store `Profiles.sqlite` of passepartoutvpn/passepartout
    /// (app-apple/Passepartout/Tests/Resources/Profiles.sqlite at 7c23f33), table ANSCKMETADATAENTRY, column
    /// ZTRANSFORMEDVALUE; the corpus copy is `../shared/corpus/stores/passepartoutvpn__passepartout__Profiles.sqlite`.
    static let appleCloudKitMetadataDictionary = data("""
        YnBsaXN0MDDUAQIDBAUGBwpYJHZlcnNpb25ZJGFyY2hpdmVyVCR0b3BYJG9iamVjdHMSAAGGoF8QD05TS2V5ZWRBcmNoaXZlctEI
        CVRyb290gAGlCwwVFhdVJG51bGzTDQ4PEBIUV05TLmtleXNaTlMub2JqZWN0c1YkY2xhc3OhEYACoROAA4AEWUNEUHJvZmlsZU8Q
        IEw1oT37myUG4sH7jSlsMfQy+fsi7JEHh2vluekUqLbY0hgZGhtaJGNsYXNzbmFtZVgkY2xhc3Nlc18QE05TTXV0YWJsZURpY3Rp
        b25hcnmjGhwdXE5TRGljdGlvbmFyeVhOU09iamVjdAAIABEAGgAkACkAMgA3AEkATABRAFMAWQBfAGYAbgB5AIAAggCEAIYAiACK
        AJQAtwC8AMcA0ADmAOoA9wAAAAAAAAIBAAAAAAAAAB4AAAAAAAAAAAAAAAAAAAEA
        """)

    /// 477 bytes: a private Core Data class, `_NSPersistentHistoryToken`, holding an `NSDictionary`
    /// `["E6E69196-8A95-4EB7-91B9-C22B5EA4612F": 2]`. Same store, table and column as above.
    static let appleHistoryToken = data("""
        YnBsaXN0MDDUAQIDBAUGBwpYJHZlcnNpb25ZJGFyY2hpdmVyVCR0b3BYJG9iamVjdHMSAAGGoF8QD05TS2V5ZWRBcmNoaXZlctEI
        CVRyb290gAGnCwwRGRobIVUkbnVsbNINDg8QViRjbGFzc18QIk5TUGVyc2lzdGVudEhpc3RvcnlUb2tlbkRpY3Rpb25hcnmABoAC
        0xITDRQWGFdOUy5rZXlzWk5TLm9iamVjdHOhFYADoReABIAFXxAkRTZFNjkxOTYtOEE5NS00RUI3LTkxQjktQzIyQjVFQTQ2MTJG
        EALSHB0eH1okY2xhc3NuYW1lWCRjbGFzc2VzXE5TRGljdGlvbmFyeaIeIFhOU09iamVjdNIcHSIjXxAZX05TUGVyc2lzdGVudEhp
        c3RvcnlUb2tlbqMkJSBfEBlfTlNQZXJzaXN0ZW50SGlzdG9yeVRva2VuXxAYTlNQZXJzaXN0ZW50SGlzdG9yeVRva2VuAAgAEQAa
        ACQAKQAyADcASQBMAFEAUwBbAGEAZgBtAJIAlACWAJ0ApQCwALIAtAC2ALgAugDhAOMA6ADzAPwBCQEMARUBGgE2AToBVgAAAAAA
        AAIBAAAAAAAAACYAAAAAAAAAAAAAAAAAAAFx
        """)

    /// 238 bytes: an app class archived as `"Content"` (`@objc(Content)`) with a `text` string, "content for page 50".
    /// From alemar11/CoreDataPlus Tests/Resources/SampleModel2/Fixtures/SampleModel2_V1.sqlite at f71b5f5, table
    /// ZPAGE, column ZCONTENT (`../shared/corpus/stores/alemar11__CoreDataPlus__SampleModel2_V1.sqlite`).
    static let applePageContent = data("""
        YnBsaXN0MDDUAQIDBAUGBwpYJHZlcnNpb25ZJGFyY2hpdmVyVCR0b3BYJG9iamVjdHMSAAGGoF8QD05TS2V5ZWRBcmNoaXZlctEI
        CVRyb290gAGkCwwRElUkbnVsbNINDg8QVHRleHRWJGNsYXNzgAKAA18QE2NvbnRlbnQgZm9yIHBhZ2UgNTDSExQVFlokY2xhc3Nu
        YW1lWCRjbGFzc2VzV0NvbnRlbnSiFRdYTlNPYmplY3QIERokKTI3SUxRU1heY2hvcXOJjpmiqq0AAAAAAAABAQAAAAAAAAAYAAAA
        AAAAAAAAAAAAAAAAtg==
        """)

    /// 277 bytes: a Swift class archived as `"CoreDataPlus_Tests.Cover"` (module-qualified, no `@objc` name) with a
    /// `text` string, "default cover". Same store as above, table ZBOOK, column ZCOVER.
    static let appleBookCover = data("""
        YnBsaXN0MDDUAQIDBAUGBwpYJHZlcnNpb25ZJGFyY2hpdmVyVCR0b3BYJG9iamVjdHMSAAGGoF8QD05TS2V5ZWRBcmNoaXZlctEI
        CVRyb290gAGkCwwRElUkbnVsbNINDg8QVHRleHRWJGNsYXNzgAKAA11kZWZhdWx0IGNvdmVy0hMUFRZaJGNsYXNzbmFtZVgkY2xh
        c3Nlc18QGENvcmVEYXRhUGx1c19UZXN0cy5Db3ZlcqIXGF8QGENvcmVEYXRhUGx1c19UZXN0cy5Db3ZlclhOU09iamVjdAgRGiQp
        MjdJTFFTWF5jaG9xc4GGkZq1uNMAAAAAAAABAQAAAAAAAAAZAAAAAAAAAAAAAAAAAAAA3A==
        """)

    /// 485 bytes: a `ZMSearchTopConversations` object under the top-level key `"top"` (not `"root"`), holding an
    /// `NSDate` (481107494.745437), an empty `NSMutableArray` and the integer 24. From wireapp/wire-ios-data-model
    /// Tests/Resources/store1-28.wiredatabase at bf5946e, value `ZMSearchTopConversations` of the store metadata
    /// plist (table Z_METADATA, column Z_PLIST).
    static let appleWireSearchTopConversations = data("""
        YnBsaXN0MDDUAQIDBAUGKClYJHZlcnNpb25YJG9iamVjdHNZJGFyY2hpdmVyVCR0b3ASAAGGoKcHCBEVGx8kVSRudWxs1AkKCwwN
        Dg8QXWNvbnZlcnNhdGlvbnNWJGNsYXNzXxAbcmVxdWVzdGVkQ29udmVyc2F0aW9uc0NvdW50VGRhdGWABIAGEBiAAtISChMUV05T
        LnRpbWUjQbytHia+1PaAA9IWFxgZWiRjbGFzc25hbWVYJGNsYXNzZXNWTlNEYXRlohgaWE5TT2JqZWN00hwKHR5aTlMub2JqZWN0
        c6CABdIWFyAhXk5TTXV0YWJsZUFycmF5oyIjGl5OU011dGFibGVBcnJheVdOU0FycmF50hYXJSZfEBhaTVNlYXJjaFRvcENvbnZl
        cnNhdGlvbnOiJxpfEBhaTVNlYXJjaFRvcENvbnZlcnNhdGlvbnNfEA9OU0tleWVkQXJjaGl2ZXLRKitTdG9wgAEACAARABoAIwAt
        ADIANwA/AEUATgBcAGMAgQCGAIgAigCMAI4AkwCbAKQApgCrALYAvwDGAMkA0gDXAOIA4wDlAOoA+QD9AQwBFAEZATQBNwFSAWQB
        ZwFrAAAAAAAAAgEAAAAAAAAALAAAAAAAAAAAAAAAAAAAAW0=
        """)

    /// an `NSUUID` E6E69196-8A95-4EB7-91B9-C22B5EA4612F (`NS.uuidbytes`).
    static let handBuiltUUID = data("""
        YnBsaXN0MDDUAQIDBAUGBwpYJHZlcnNpb25ZJGFyY2hpdmVyVCR0b3BYJG9iamVjdHMSAAGGoF8QD05TS2V5ZWRBcmNoaXZlctEI
        CVRyb290gAGjCwwRVSRudWxs0g0ODxBcTlMudXVpZGJ5dGVzViRjbGFzc08QEObmkZaKlU63kbnCK16kYS+AAtISExQVWiRjbGFz
        c25hbWVYJGNsYXNzZXNWTlNVVUlEohQWWE5TT2JqZWN0CBEaJCkyN0lMUVNXXWJvdomLkJukq64AAAAAAAABAQAAAAAAAAAXAAAA
        AAAAAAAAAAAAAAAAtw==
        """)

    /// an `NSURL` https://www.objc.io/books/core-data/ (`NS.base` $null, `NS.relative`).
    static let handBuiltURL = data("""
        YnBsaXN0MDDUAQIDBAUGBwpYJHZlcnNpb25ZJGFyY2hpdmVyVCR0b3BYJG9iamVjdHMSAAGGoF8QD05TS2V5ZWRBcmNoaXZlctEI
        CVRyb290gAGkCwwTFFUkbnVsbNMNDg8QERJXTlMuYmFzZVtOUy5yZWxhdGl2ZVYkY2xhc3OAAIACgANfECRodHRwczovL3d3dy5v
        YmpjLmlvL2Jvb2tzL2NvcmUtZGF0YS/SFRYXGFokY2xhc3NuYW1lWCRjbGFzc2VzVU5TVVJMohcZWE5TT2JqZWN0CBEaJCkyN0lM
        UVNYXmVteYCChIatsr3GzM8AAAAAAAABAQAAAAAAAAAaAAAAAAAAAAAAAAAAAAAA2A==
        """)

    /// an `NSDate` with `NS.time` 481107494.745437.
    static let handBuiltDate = data("""
        YnBsaXN0MDDUAQIDBAUGBwpYJHZlcnNpb25ZJGFyY2hpdmVyVCR0b3BYJG9iamVjdHMSAAGGoF8QD05TS2V5ZWRBcmNoaXZlctEI
        CVRyb290gAGjCwwRVSRudWxs0g0ODxBXTlMudGltZVYkY2xhc3MjQbytHia+1PaAAtISExQVWiRjbGFzc25hbWVYJGNsYXNzZXNW
        TlNEYXRlohQWWE5TT2JqZWN0CBEaJCkyN0lMUVNXXWJqcXp8gYyVnJ8AAAAAAAABAQAAAAAAAAAXAAAAAAAAAAAAAAAAAAAAqA==
        """)

    /// an inline integer, 42.
    static let handBuiltInteger = data("""
        YnBsaXN0MDDUAQIDBAUGBwpYJHZlcnNpb25ZJGFyY2hpdmVyVCR0b3BYJG9iamVjdHMSAAGGoF8QD05TS2V5ZWRBcmNoaXZlctEI
        CVRyb290gAGiCwxVJG51bGwQKggRGiQpMjdJTFFTVlwAAAAAAAABAQAAAAAAAAANAAAAAAAAAAAAAAAAAAAAXg==
        """)

    /// an inline real, 3.25.
    static let handBuiltDouble = data("""
        YnBsaXN0MDDUAQIDBAUGBwpYJHZlcnNpb25ZJGFyY2hpdmVyVCR0b3BYJG9iamVjdHMSAAGGoF8QD05TS2V5ZWRBcmNoaXZlctEI
        CVRyb290gAGiCwxVJG51bGwjQAoAAAAAAAAIERokKTI3SUxRU1ZcAAAAAAAAAQEAAAAAAAAADQAAAAAAAAAAAAAAAAAAAGU=
        """)

    /// an inline Boolean, true.
    static let handBuiltBool = data("""
        YnBsaXN0MDDUAQIDBAUGBwpYJHZlcnNpb25ZJGFyY2hpdmVyVCR0b3BYJG9iamVjdHMSAAGGoF8QD05TS2V5ZWRBcmNoaXZlctEI
        CVRyb290gAGiCwxVJG51bGwJCBEaJCkyN0lMUVNWXAAAAAAAAAEBAAAAAAAAAA0AAAAAAAAAAAAAAAAAAABd
        """)

    /// an inline string with non-ASCII characters (UTF-16 in the property list), "héllo wörld".
    static let handBuiltString = data("""
        YnBsaXN0MDDUAQIDBAUGBwpYJHZlcnNpb25ZJGFyY2hpdmVyVCR0b3BYJG9iamVjdHMSAAGGoF8QD05TS2V5ZWRBcmNoaXZlctEI
        CVRyb290gAGiCwxVJG51bGxrAGgA6QBsAGwAbwAgAHcA9gByAGwAZAgRGiQpMjdJTFFTVlwAAAAAAAABAQAAAAAAAAANAAAAAAAA
        AAAAAAAAAAAAcw==
        """)

    /// an `NSMutableString` object (`NS.string`), "mutable".
    static let handBuiltMutableString = data("""
        YnBsaXN0MDDUAQIDBAUGBwpYJHZlcnNpb25ZJGFyY2hpdmVyVCR0b3BYJG9iamVjdHMSAAGGoF8QD05TS2V5ZWRBcmNoaXZlctEI
        CVRyb290gAGjCwwRVSRudWxs0g0ODxBZTlMuc3RyaW5nViRjbGFzc1dtdXRhYmxlgALSEhMUFVokY2xhc3NuYW1lWCRjbGFzc2Vz
        XxAPTlNNdXRhYmxlU3RyaW5noxQWF1hOU1N0cmluZ1hOU09iamVjdAgRGiQpMjdJTFFTV11ibHN7fYKNlqistQAAAAAAAAEBAAAA
        AAAAABgAAAAAAAAAAAAAAAAAAAC+
        """)

    /// inline data, 01 02 03.
    static let handBuiltData = data("""
        YnBsaXN0MDDUAQIDBAUGBwpYJHZlcnNpb25ZJGFyY2hpdmVyVCR0b3BYJG9iamVjdHMSAAGGoF8QD05TS2V5ZWRBcmNoaXZlctEI
        CVRyb290gAGiCwxVJG51bGxDAQIDCBEaJCkyN0lMUVNWXAAAAAAAAAEBAAAAAAAAAA0AAAAAAAAAAAAAAAAAAABg
        """)

    /// an `NSMutableData` object (`NS.data`), 04 05.
    static let handBuiltMutableData = data("""
        YnBsaXN0MDDUAQIDBAUGBwpYJHZlcnNpb25ZJGFyY2hpdmVyVCR0b3BYJG9iamVjdHMSAAGGoF8QD05TS2V5ZWRBcmNoaXZlctEI
        CVRyb290gAGjCwwRVSRudWxs0g0ODxBXTlMuZGF0YVYkY2xhc3NCBAWAAtISExQVWiRjbGFzc25hbWVYJGNsYXNzZXNdTlNNdXRh
        YmxlRGF0YaMUFhdWTlNEYXRhWE5TT2JqZWN0CBEaJCkyN0lMUVNXXWJqcXR2e4aPnaGoAAAAAAAAAQEAAAAAAAAAGAAAAAAAAAAA
        AAAAAAAAALE=
        """)

    /// an `NSArray` ["a", 7, 2.5, false].
    static let handBuiltArray = data("""
        YnBsaXN0MDDUAQIDBAUGBwpYJHZlcnNpb25ZJGFyY2hpdmVyVCR0b3BYJG9iamVjdHMSAAGGoF8QD05TS2V5ZWRBcmNoaXZlctEI
        CVRyb290gAGnCwwVFhcYGVUkbnVsbNINDg8UWk5TLm9iamVjdHNWJGNsYXNzpBAREhOAAoADgASABYAGUWEQByNABAAAAAAAAAjS
        GhscHVokY2xhc3NuYW1lWCRjbGFzc2VzV05TQXJyYXmiHB5YTlNPYmplY3QIERokKTI3SUxRU1thZnF4fX+Bg4WHiYuUlZqlrra5
        AAAAAAAAAQEAAAAAAAAAHwAAAAAAAAAAAAAAAAAAAMI=
        """)

    /// an `NSMutableArray` ["x"].
    static let handBuiltMutableArray = data("""
        YnBsaXN0MDDUAQIDBAUGBwpYJHZlcnNpb25ZJGFyY2hpdmVyVCR0b3BYJG9iamVjdHMSAAGGoF8QD05TS2V5ZWRBcmNoaXZlctEI
        CVRyb290gAGkCwwSE1UkbnVsbNINDg8RWk5TLm9iamVjdHNWJGNsYXNzoRCAAoADUXjSFBUWF1okY2xhc3NuYW1lWCRjbGFzc2Vz
        Xk5TTXV0YWJsZUFycmF5oxYYGVdOU0FycmF5WE5TT2JqZWN0CBEaJCkyN0lMUVNYXmNudXd5e32CjZalqbEAAAAAAAABAQAAAAAA
        AAAaAAAAAAAAAAAAAAAAAAAAug==
        """)

    /// an `NSSet` {"p", "q"}.
    static let handBuiltSet = data("""
        YnBsaXN0MDDUAQIDBAUGBwpYJHZlcnNpb25ZJGFyY2hpdmVyVCR0b3BYJG9iamVjdHMSAAGGoF8QD05TS2V5ZWRBcmNoaXZlctEI
        CVRyb290gAGlCwwTFBVVJG51bGzSDQ4PElpOUy5vYmplY3RzViRjbGFzc6IQEYACgAOABFFwUXHSFhcYGVokY2xhc3NuYW1lWCRj
        bGFzc2VzVU5TU2V0ohgaWE5TT2JqZWN0CBEaJCkyN0lMUVNZX2Rvdnl7fX+Bg4iTnKKlAAAAAAAAAQEAAAAAAAAAGwAAAAAAAAAA
        AAAAAAAAAK4=
        """)

    /// an `NSDictionary` ["k1": 1, "k2": NSNull].
    static let handBuiltDictionary = data("""
        YnBsaXN0MDDUAQIDBAUGBwpYJHZlcnNpb25ZJGFyY2hpdmVyVCR0b3BYJG9iamVjdHMSAAGGoF8QD05TS2V5ZWRBcmNoaXZlctEI
        CVRyb290gAGoCwwXGBkaHCJVJG51bGzTDQ4PEBMWV05TLmtleXNaTlMub2JqZWN0c1YkY2xhc3OiERKAAoADohQVgASABYAGUmsx
        UmsyEAHRDxuAB9IdHh8gWiRjbGFzc25hbWVYJGNsYXNzZXNcTlNEaWN0aW9uYXJ5oh8hWE5TT2JqZWN00h0eIyRWTlNOdWxsoiMh
        CBEaJCkyN0lMUVNcYmlxfIOGiIqNj5GTlpmbnqClsLnGydLX3gAAAAAAAAEBAAAAAAAAACUAAAAAAAAAAAAAAAAAAADh
        """)

    /// an `NSMutableDictionary` ["k": true].
    static let handBuiltMutableDictionary = data("""
        YnBsaXN0MDDUAQIDBAUGBwpYJHZlcnNpb25ZJGFyY2hpdmVyVCR0b3BYJG9iamVjdHMSAAGGoF8QD05TS2V5ZWRBcmNoaXZlctEI
        CVRyb290gAGlCwwVFhdVJG51bGzTDQ4PEBIUV05TLmtleXNaTlMub2JqZWN0c1YkY2xhc3OhEYACoROAA4AEUWsJ0hgZGhtaJGNs
        YXNzbmFtZVgkY2xhc3Nlc18QE05TTXV0YWJsZURpY3Rpb25hcnmjGhwdXE5TRGljdGlvbmFyeVhOU09iamVjdAgRGiQpMjdJTFFT
        WV9mbnmAgoSGiIqMjZKdprzAzQAAAAAAAAEBAAAAAAAAAB4AAAAAAAAAAAAAAAAAAADW
        """)

    /// an `NSNull`.
    static let handBuiltNull = data("""
        YnBsaXN0MDDUAQIDBAUGBwpYJHZlcnNpb25ZJGFyY2hpdmVyVCR0b3BYJG9iamVjdHMSAAGGoF8QD05TS2V5ZWRBcmNoaXZlctEI
        CVRyb290gAGjCwwPVSRudWxs0Q0OViRjbGFzc4AC0hAREhNaJGNsYXNzbmFtZVgkY2xhc3Nlc1ZOU051bGyiEhRYTlNPYmplY3QI
        ERokKTI3SUxRU1ddYGdpbnmCiYwAAAAAAAABAQAAAAAAAAAVAAAAAAAAAAAAAAAAAAAAlQ==
        """)

    /// an `NSMutableDictionary` ["when": NSMutableArray [NSDate 0, NSDate -978307200], "link": NSURL file:///var/mobile/photo.jpg, "id": NSUUID 00010203-0405-0607-0809-0A0B0C0D0E0F, "tags": NSMutableSet {"a"}].
    static let handBuiltNested = data("""
        YnBsaXN0MDDUAQIDBAUGBwpYJHZlcnNpb25ZJGFyY2hpdmVyVCR0b3BYJG9iamVjdHMSAAGGoF8QD05TS2V5ZWRBcmNoaXZlctEI
        CVRyb290gAGvEBULDBscHR4fJCguMTI2PD1AREdLTFBVJG51bGzTDQ4PEBUaV05TLmtleXNaTlMub2JqZWN0c1YkY2xhc3OkERIT
        FIACgAOABIAFpBYXGBmABoAMgA+AEYAUVHdoZW5UbGlua1JpZFR0YWdz0g4PICOiISKAB4AJgAvSJQ8mJ1dOUy50aW1lIwAAAAAA
        AAAAgAjSKSorLFokY2xhc3NuYW1lWCRjbGFzc2VzVk5TRGF0ZaIrLVhOU09iamVjdNIlDy8wI8HNJ+RAAAAAgAhcdW5yZWZlcmVu
        Y2Vk0ikqMzReTlNNdXRhYmxlQXJyYXmjMzUtV05TQXJyYXnTNzgPOTo7V05TLmJhc2VbTlMucmVsYXRpdmWAAIANgA5fEBxmaWxl
        Oi8vL3Zhci9tb2JpbGUvcGhvdG8uanBn0ikqPj9VTlNVUkyiPi3SQQ9CQ1xOUy51dWlkYnl0ZXNPEBAAAQIDBAUGBwgJCgsMDQ4P
        gBDSKSpFRlZOU1VVSUSiRS3SDg9ISqFJgBKAE1Fh0ikqTU5cTlNNdXRhYmxlU2V0o01PLVVOU1NldNIpKlFSXxATTlNNdXRhYmxl
        RGljdGlvbmFyeaNRUy1cTlNEaWN0aW9uYXJ5AAgAEQAaACQAKQAyADcASQBMAFEAUwBrAHEAeACAAIsAkgCXAJkAmwCdAJ8ApACm
        AKgAqgCsAK4AswC4ALsAwADFAMgAygDMAM4A0wDbAOQA5gDrAPYA/wEGAQkBEgEXASABIgEvATQBQwFHAU8BVgFeAWoBbAFuAXAB
        jwGUAZoBnQGiAa8BwgHEAckB0AHTAdgB2gHcAd4B4AHlAfIB9gH8AgECFwIbAAAAAAAAAgEAAAAAAAAAVAAAAAAAAAAAAAAAAAAA
        Aig=
        """)

    /// The colors of a mood in objc.io's Moody app: 8 colors as 24 RGB bytes, written by the app's
    /// `ColorsTransformer`. From objcio/core-data Migrations/MigrationsTests/Moody.moody at 8c8d9cd, table ZMOOD,
    /// column ZCOLORS (`../shared/corpus/stores/objcio__core-data__Moody.moody`).
    static let moodyColors: [UInt8] = [
        0x6B, 0x65, 0x5A, 0xDD, 0xDF, 0xE4, 0x48, 0x42, 0x31, 0x27, 0x24, 0x0B,
        0x88, 0x87, 0x86, 0x0B, 0x09, 0x03, 0x39, 0x2C, 0x0B, 0x98, 0x99, 0x9D,
    ]
}
