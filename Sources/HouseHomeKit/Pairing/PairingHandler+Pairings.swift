extension PairingHandler {
    /// `POST /pairings` from the verified controller `controllerID`: add, remove or list
    /// pairings (admins only). Returns the answer and the controllers whose pairing is gone,
    /// whose sessions must close once the answer is out.
    public func pairings(_ request: TLV8, controllerID: String) throws(HomeKitError) -> (TLV8, removed: [String]) {
        guard request.byte(.state) == 1 else { return (Self.answer(state: 2, error: .unknown), []) }
        guard store.pairing(id: controllerID)?.admin == true else { return (Self.answer(state: 2, error: .authentication), []) }
        var answer = TLV8()
        answer.append(.state, byte: 2)
        switch request.byte(.method).flatMap(PairingMethod.init(rawValue:)) {
        case .addPairing:
            guard let id = request[.identifier].flatMap({ String(validating: $0, as: UTF8.self) }), let key = request[.publicKey], key.count == 32,
                  let permissions = request.byte(.permissions) else {
                return (Self.answer(state: 2, error: .unknown), [])
            }
            let full = store.pairings.count >= PairingStore.maxPairings && store.pairing(id: id) == nil
            guard try store.add(PairingStore.Pairing(id: id, publicKey: key, admin: permissions & 1 == 1)) else {
                return (Self.answer(state: 2, error: full ? .maxPeers : .unknown), [])
            }
            return (answer, [])
        case .removePairing:
            guard let id = request[.identifier].flatMap({ String(validating: $0, as: UTF8.self) }) else {
                return (Self.answer(state: 2, error: .unknown), [])
            }
            return (answer, try store.remove(id: id))
        case .listPairings:
            for (i, pairing) in store.pairings.enumerated() {
                if i > 0 { answer.append(.separator, []) }
                answer.append(.identifier, Array(pairing.id.utf8))
                answer.append(.publicKey, pairing.publicKey)
                answer.append(.permissions, byte: pairing.admin ? 1 : 0)
            }
            return (answer, [])
        default:
            return (Self.answer(state: 2, error: .unknown), [])
        }
    }
}
