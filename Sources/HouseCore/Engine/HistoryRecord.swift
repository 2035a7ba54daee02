import Foundation

/// One handled intent: the donation, as stored.
public struct HistoryRecord: Sendable, Equatable {
    public var seq: Int64?
    public var at: Date
    public var source: String
    /// `control`, `mode`, `query`, `routine`.
    public var kind: String
    /// What ran, in a few words ("bedroom-light off").
    public var summary: String
    /// `success` or `failure`.
    public var outcome: String
    public var dialog: String
    /// JSON of the resolved parameters.
    public var details: String?
    public var requestID: String?

    public init(seq: Int64? = nil, at: Date, source: String, kind: String, summary: String, outcome: String,
                dialog: String, details: String? = nil, requestID: String? = nil) {
        self.seq = seq
        self.at = at
        self.source = source
        self.kind = kind
        self.summary = summary
        self.outcome = outcome
        self.dialog = dialog
        self.details = details
        self.requestID = requestID
    }
}
