import Foundation

extension Duration {
    /// Seconds as a `TimeInterval`.
    var scheduleSeconds: TimeInterval {
        let c = components
        return Double(c.seconds) + Double(c.attoseconds) / 1e18
    }
}
