public import Foundation

/// Apple's reference date: 2001-01-01 00:00:00 UTC, the epoch of every date Core Data stores.
public enum ReferenceDate {
    /// Seconds from 1970-01-01 to 2001-01-01 (UTC).
    public static let secondsAfterUnixEpoch: Double = 978_307_200

    /// The date that lies `seconds` after the reference date.
    /// - Parameter seconds: seconds since 2001-01-01 00:00:00 UTC.
    /// - Returns: the date.
    public static func date(secondsSinceReferenceDate seconds: Double) -> Date {
        Date(timeIntervalSinceReferenceDate: seconds)
    }

    /// Seconds from the reference date to `date` (negative before 2001).
    /// - Parameter date: the date.
    /// - Returns: the seconds.
    public static func seconds(of date: Date) -> Double {
        date.timeIntervalSinceReferenceDate
    }
}
