import Foundation

/// Sun times from latitude, longitude and date, with NOAA's solar calculator algorithm
/// (the equations of the NOAA Global Monitoring Laboratory's "Solar Calculations" spreadsheet,
/// after Meeus, *Astronomical Algorithms*).
///
/// Each event is computed at an approximate time first and then refined once at the time found,
/// which keeps results within a minute of the NOAA calculator at mid latitudes.
/// Sunrise and sunset use the standard 0.833 degree refraction and solar-disc correction (zenith
/// 90.833 degrees); civil dawn and dusk use zenith 96 degrees.
public struct SunCalculator: Sendable, Hashable {
    /// Degrees north (negative south).
    public var latitude: Double
    /// Degrees east (negative west).
    public var longitude: Double
    /// The zone whose calendar days `date` refers to.
    public var timeZone: HouseZone

    /// Latitude is clamped to +/-89.99 degrees and longitude wrapped to -180...180, so bad input
    /// gives odd answers, never NaN or a crash (the configuration validates the ranges).
    public init(latitude: Double, longitude: Double, timeZone: HouseZone) {
        self.latitude = latitude.isFinite ? min(max(latitude, -89.99), 89.99) : 0
        var lon = longitude.isFinite ? longitude.truncatingRemainder(dividingBy: 360) : 0
        if lon > 180 { lon -= 360 }
        if lon < -180 { lon += 360 }
        self.longitude = lon
        self.timeZone = timeZone
    }

    /// When `event` happens on local day `day`, or why it does not.
    public func occurrence(of event: SunEvent, on day: LocalDate) -> SunOccurrence {
        let noonMinutes = solarNoonMinutes(on: day)
        switch event {
        case .noon:
            return .at(date(day, utcMinutes: noonMinutes))
        case .sunrise:
            return eventTime(day, noonMinutes: noonMinutes, zenith: 90.833, rising: true)
        case .sunset:
            return eventTime(day, noonMinutes: noonMinutes, zenith: 90.833, rising: false)
        case .dawn:
            return eventTime(day, noonMinutes: noonMinutes, zenith: 96, rising: true)
        case .dusk:
            return eventTime(day, noonMinutes: noonMinutes, zenith: 96, rising: false)
        }
    }

    /// All five events of a day.
    public func times(on day: LocalDate) -> [SunEvent: SunOccurrence] {
        var out: [SunEvent: SunOccurrence] = [:]
        for e in SunEvent.allCases { out[e] = occurrence(of: e, on: day) }
        return out
    }

    // MARK: - Algorithm

    /// Solar noon in minutes after 00:00 UTC of `day`, the transit nearest local noon.
    private func solarNoonMinutes(on day: LocalDate) -> Double {
        let offsetMinutes = Double(timeZone.secondsFromGMT(for: date(day, utcMinutes: 720))) / 60
        let localNoonUTC = 720 - offsetMinutes
        var noon = 720 - 4 * longitude
        // Refine twice with the equation of time at the transit itself.
        for _ in 0..<2 {
            let p = SolarPosition(julianCentury: julianCentury(day, utcMinutes: noon))
            noon = 720 - 4 * longitude - p.equationOfTime
            while noon - localNoonUTC > 720 { noon -= 1440 }
            while localNoonUTC - noon > 720 { noon += 1440 }
        }
        return noon
    }

    private func eventTime(_ day: LocalDate, noonMinutes: Double, zenith: Double, rising: Bool) -> SunOccurrence {
        var minutes = noonMinutes
        // First pass at noon, then at the estimated event time.
        for pass in 0..<3 {
            let p = SolarPosition(julianCentury: julianCentury(day, utcMinutes: minutes))
            let lat = latitude * .pi / 180
            let dec = p.declination * .pi / 180
            let cosH = cos(zenith * .pi / 180) / (cos(lat) * cos(dec)) - tan(lat) * tan(dec)
            // Latitudes beyond the poles (bad input) give no finite answer: treat as no event.
            guard cosH.isFinite else { return .sunAlwaysBelow }
            if cosH > 1 {
                if pass == 0 { return .sunAlwaysBelow }
                break
            }
            if cosH < -1 {
                if pass == 0 { return .sunAlwaysAbove }
                break
            }
            let hourAngle = acos(cosH) * 180 / .pi
            let transit = 720 - 4 * longitude - p.equationOfTime
            let shift = (noonMinutes - transit) // keep the same day as the chosen noon
            let wholeDays = (shift / 1440).rounded() * 1440
            minutes = transit + wholeDays + (rising ? -4 * hourAngle : 4 * hourAngle)
        }
        return .at(date(day, utcMinutes: minutes))
    }

    private func date(_ day: LocalDate, utcMinutes: Double) -> Date {
        Date(timeIntervalSince1970: Double(day.daysSinceEpoch) * 86400 + (utcMinutes * 60).rounded())
    }

    private func julianCentury(_ day: LocalDate, utcMinutes: Double) -> Double {
        // Julian day of 1970-01-01 00:00 UTC is 2440587.5.
        let jd = 2_440_587.5 + Double(day.daysSinceEpoch) + utcMinutes / 1440
        return (jd - 2_451_545) / 36525
    }
}

/// The sun's declination and the equation of time at a Julian century (NOAA spreadsheet columns).
struct SolarPosition {
    /// Degrees.
    var declination: Double
    /// Minutes.
    var equationOfTime: Double

    init(julianCentury t: Double) {
        let rad = Double.pi / 180
        let l0 = (280.46646 + t * (36000.76983 + t * 0.0003032)).truncatingRemainder(dividingBy: 360)
        let m = 357.52911 + t * (35999.05029 - 0.0001537 * t)
        let e = 0.016708634 - t * (0.000042037 + 0.0000001267 * t)
        let c = sin(m * rad) * (1.914602 - t * (0.004817 + 0.000014 * t))
            + sin(2 * m * rad) * (0.019993 - 0.000101 * t)
            + sin(3 * m * rad) * 0.000289
        let trueLong = l0 + c
        let omega = 125.04 - 1934.136 * t
        let appLong = trueLong - 0.00569 - 0.00478 * sin(omega * rad)
        let meanObliq = 23 + (26 + (21.448 - t * (46.815 + t * (0.00059 - t * 0.001813))) / 60) / 60
        let obliq = meanObliq + 0.00256 * cos(omega * rad)
        declination = asin(sin(obliq * rad) * sin(appLong * rad)) / rad
        let y = pow(tan(obliq * rad / 2), 2)
        let eq = y * sin(2 * l0 * rad) - 2 * e * sin(m * rad) + 4 * e * y * sin(m * rad) * cos(2 * l0 * rad)
            - 0.5 * y * y * sin(4 * l0 * rad) - 1.25 * e * e * sin(2 * m * rad)
        equationOfTime = 4 * eq / rad
    }
}
