import Testing
import HouseCore
import HouseMQTT
@testable import HouseDaemon

/// `TopicLayout.parseNodeStatus(_:)`, the one reader of a node's status topic (the topic API
/// and the coordinator's election both use it).
@Suite struct NodeStatusMessageTests {
    let layout = TopicLayout(base: "home/house")

    func read(_ topic: String, _ payload: String) -> TopicLayout.NodeStatusMessage? {
        layout.parseNodeStatus(MQTTMessage(topic: topic, string: payload))
    }

    @Test func onlineAndOfflineWithWhitespaceAround() {
        #expect(read("home/house/node/pi-main/status", "online") == .init(node: "pi-main", online: true, text: "online"))
        #expect(read("home/house/node/pi-main/status", " offline\n") == .init(node: "pi-main", online: false, text: "offline"))
        #expect(read(layout.nodeStatus(node: "pi-garage"), "\u{A0}online\r\n")?.online == true)
    }

    @Test func aPayloadThatSaysNeitherIsReadWithoutAState() {
        let status = read("home/house/node/pi-main/status", "  rebooting ")
        #expect(status?.node == "pi-main")
        #expect(status?.online == nil)
        #expect(status?.text == "rebooting")
        #expect(read("home/house/node/pi-main/status", "ONLINE")?.online == nil, "the payload is the exact word")
    }

    @Test func otherTopicsAreNotANodesStatus() {
        for topic in ["house/node/pi-main/status", "home/house/node//status", "home/house/node/a/b/status",
                      "home/house/node/pi-main/probe", "home/house/node/status", "home/house/pi-main/status"] {
            #expect(read(topic, "online") == nil, "\(topic)")
        }
    }
}
