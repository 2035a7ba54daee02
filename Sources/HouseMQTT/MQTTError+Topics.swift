import MQTTTopics

extension MQTTError {
    /// Throws `invalidTopic` unless `topic` can be published to (see `MQTTTopic.topicNameProblem`).
    static func checkTopicName(_ topic: String) throws(MQTTError) {
        if let problem = MQTTTopic.topicNameProblem(topic) { throw .invalidTopic(shown(topic, problem), reason: problem.description) }
    }

    /// Throws `invalidFilter` unless `filter` is a valid subscription filter (see `MQTTTopic.filterProblem`).
    static func checkFilter(_ filter: String) throws(MQTTError) {
        if let problem = MQTTTopic.filterProblem(filter) { throw .invalidFilter(shown(filter, problem), reason: problem.description) }
    }

    /// The topic as an error shows it: its start only when it is too long to print.
    private static func shown(_ topic: String, _ problem: MQTTTopicProblem) -> String {
        if case .tooLong = problem { return String(topic.prefix(40)) + "…" }
        return topic
    }
}
