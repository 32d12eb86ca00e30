/// Whether a store's to-many relationships can be written into a store that keeps one side of each pair.
///
/// Core Data keeps a relationship and its inverse in step as objects change, and a store that holds both sides (XML,
/// binary) keeps whatever it is given. A SQLite store holds one side only — a one-to-many as the to-one's foreign
/// keys, a many-to-many as one join table read from both ends, a to-many without an inverse as one key on each
/// destination — so a document whose two sides disagree, or whose inverse-less to-many names one object from two
/// owners (a file edited by hand, or written by a broken program), would come out of a copy into SQLite with links
/// silently added or dropped. The copy is refused instead, naming one such link (`docutil check` lists inverse
/// mismatches).
enum InverseAgreement {
    /// One relationship as a side of a pair: its name, whether it is to-many, its pair and whether it is the pair's
    /// first side (links are counted as first side's owner → its destination).
    private struct Side {
        let name: String
        let isToMany: Bool
        let inverseName: String
        let pair: Int
        /// The relationship's slot in the entity's layout (-1 when it has none).
        let slot: Int
        let isFirst: Bool
        /// A relationship that is its own inverse: each link must be named from both ends.
        let isOwnInverse: Bool
        /// A to-many without an inverse: each destination may be named by one owner only.
        let isExclusive: Bool
        /// A to-many kept as a key on each destination's row (its inverse is a to-one, or it has none): a link to
        /// an object that is not there has nowhere to be kept.
        let isKeptOnDestinations: Bool

        func at(_ slot: Int) -> Side {
            Side(
                name: name, isToMany: isToMany, inverseName: inverseName, pair: pair, slot: slot, isFirst: isFirst,
                isOwnInverse: isOwnInverse, isExclusive: isExclusive, isKeptOnDestinations: isKeptOnDestinations)
        }
    }

    /// Every relationship of a checked pair (and every inverse-less to-many) by its declaring entity and name, each
    /// pair numbered.
    private struct Registry {
        var sides: [String: Side] = [:]
        var pairs: [String: Int] = [:]

        init(_ model: ManagedObjectModel) {
            for entity in model.entities {
                for relationship in entity.relationships where relationship.isToMany && !relationship.isTransient {
                    let this = "\(entity.name).\(relationship.name)"
                    guard let inverse = model.inverse(of: relationship) else {
                        add(
                            this,
                            Side(
                                name: relationship.name, isToMany: true, inverseName: "", pair: number(this), slot: -1,
                                isFirst: true, isOwnInverse: false, isExclusive: true, isKeptOnDestinations: true))
                        continue
                    }
                    guard !inverse.isTransient else { continue }
                    let that =
                        "\(Self.declaring(inverse.name, from: relationship.destinationEntityName, model)).\(inverse.name)"
                    let pair = number(this < that ? "\(this)|\(that)" : "\(that)|\(this)")
                    add(
                        this,
                        Side(
                            name: relationship.name, isToMany: true, inverseName: inverse.name, pair: pair, slot: -1,
                            isFirst: this <= that, isOwnInverse: this == that, isExclusive: false,
                            isKeptOnDestinations: !inverse.isToMany))
                    if this != that {
                        add(
                            that,
                            Side(
                                name: inverse.name, isToMany: inverse.isToMany, inverseName: relationship.name,
                                pair: pair, slot: -1, isFirst: that < this, isOwnInverse: false, isExclusive: false,
                                isKeptOnDestinations: false))
                    }
                }
            }
        }

        private mutating func number(_ name: String) -> Int {
            if let known = pairs[name] { return known }
            pairs[name] = pairs.count
            return pairs.count - 1
        }

        private mutating func add(_ key: String, _ side: Side) {
            if sides[key] == nil { sides[key] = side }
        }

        /// The entity among `entity` and its ancestors that declares relationship `name`.
        static func declaring(_ name: String, from entity: String, _ model: ManagedObjectModel) -> String {
            var current: String? = entity
            while let name_ = current, let description = model.entity(named: name_) {
                if description.relationships.contains(where: { $0.name == name }) { return name_ }
                current = description.parentName
            }
            return entity
        }

        /// The checked relationships of `entity` (declared or inherited), with their slots in its layout.
        func sides(of entity: String, model: ManagedObjectModel) -> [Side] {
            let layout = model.layout(of: entity)
            var found: [Side] = []
            for relationship in model.allRelationships(of: entity) where !relationship.isTransient {
                let key = "\(Self.declaring(relationship.name, from: entity, model)).\(relationship.name)"
                guard let side = sides[key] else { continue }
                found.append(side.at(layout?.relationshipSlot(named: relationship.name) ?? -1))
            }
            return found
        }
    }

    /// What one side of a pair names, summed so that the order of the links does not matter: how many, and two
    /// sums of a mix of each (owner, destination) pair.
    private struct Tally: Equatable {
        var count = 0
        var sum: UInt64 = 0
        var xor: UInt64 = 0

        mutating func add(_ owner: Int, _ destination: Int) {
            // SplitMix64's finalizer over the pair of places.
            var z = UInt64(truncatingIfNeeded: owner) << 32 ^ UInt64(truncatingIfNeeded: destination)
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            z ^= z >> 31
            count += 1
            sum &+= z
            xor ^= z &* 0x9E37_79B9_7F4A_7C15
        }
    }

    /// Checks that every to-many relationship with an inverse (and that inverse) name the same links among
    /// `snapshots`; links to objects not among them (references the store keeps to deleted objects) are left out.
    /// One-to-one pairs are not checked (a SQLite store keeps both of their sides), nor pairs whose two sides do not
    /// name each other as inverses.
    ///
    /// The links are tallied side by side in one pass (one lookup per link, nothing kept per link); only when the
    /// tallies of a pair differ are they gathered, to name one that is on one side only.
    /// - Parameters:
    ///   - snapshots: every object of the store being copied.
    ///   - model: their model.
    ///   - target: the store type of the copy, for the message.
    /// - Throws: `StoreError` `corrupt` naming the first link found on one side only.
    static func check(_ snapshots: [ObjectSnapshot], model: ManagedObjectModel, target: String) throws(StoreError) {
        var places: [ManagedObjectID: Int] = [:]
        places.reserveCapacity(snapshots.count)
        for (place, snapshot) in snapshots.enumerated() { places[snapshot.objectID] = place }
        let registry = Registry(model)
        guard !registry.sides.isEmpty else { return }
        var sidesByEntity: [String: [Side]] = [:]
        var tallies: [(first: Tally, second: Tally)] = []
        // Pairs with a side some snapshot did not read (a to-many fault) cannot be checked.
        var unknown: Set<Int> = []
        // For each inverse-less to-many, the owner of each destination named so far.
        var owners: [Int: [Int: Int]] = [:]
        try forEachLink(snapshots, model: model, places: places, registry: registry, sides: &sidesByEntity) {
            (side, owner, destination) throws(StoreError) in
            while tallies.count <= side.pair { tallies.append((Tally(), Tally())) }
            if destination < 0 {
                unknown.insert(side.pair)
            } else if side.isExclusive {
                if let other = owners[side.pair, default: [:]].updateValue(owner, forKey: destination), other != owner {
                    let (first, second) = (snapshots[min(owner, other)].objectID, snapshots[max(owner, other)].objectID)
                    throw StoreError(
                        .corrupt,
                        "\(snapshots[destination].objectID) is named by both \(first).\(side.name) and \(second).\(side.name), a to-many relationship without an inverse, which a \(target) store keeps as one key on each destination, so a copy would drop one; not written"
                    )
                }
            } else if side.isOwnInverse {
                tallies[side.pair].first.add(owner, destination)
                tallies[side.pair].second.add(destination, owner)
            } else if side.isFirst {
                tallies[side.pair].first.add(owner, destination)
            } else {
                tallies[side.pair].second.add(destination, owner)
            }
        }
        for pair in unknown { tallies[pair] = (Tally(), Tally()) }
        guard tallies.contains(where: { $0.first != $0.second }) else { return }
        // Some pair disagrees: gather its links to name one.
        var links: [(first: Set<[Int]>, second: Set<[Int]>, names: (String, String))] = Array(
            repeating: ([], [], ("", "")), count: tallies.count)
        try forEachLink(snapshots, model: model, places: places, registry: registry, sides: &sidesByEntity) {
            side, owner, destination in
            guard destination >= 0, !side.isExclusive, tallies[side.pair].first != tallies[side.pair].second else {
                return
            }
            if side.isOwnInverse {
                links[side.pair].first.insert([owner, destination])
                links[side.pair].second.insert([destination, owner])
                links[side.pair].names = (side.name, side.name)
            } else if side.isFirst {
                links[side.pair].first.insert([owner, destination])
                links[side.pair].names = (side.name, side.inverseName)
            } else {
                links[side.pair].second.insert([destination, owner])
                links[side.pair].names = (side.inverseName, side.name)
            }
        }
        for pair in links where pair.first != pair.second {
            let (first, second) = pair.names
            let message: String
            if let link = pair.first.subtracting(pair.second).min(by: { $0.lexicographicallyPrecedes($1) }) {
                let (owner, destination) = (snapshots[link[0]].objectID, snapshots[link[1]].objectID)
                message = "\(owner).\(first) names \(destination), but its \(second) does not name \(owner)"
            } else if let link = pair.second.subtracting(pair.first).min(by: { $0.lexicographicallyPrecedes($1) }) {
                let (owner, destination) = (snapshots[link[0]].objectID, snapshots[link[1]].objectID)
                message = "\(destination).\(second) names \(owner), but its \(first) does not name \(destination)"
            } else {
                continue
            }
            throw StoreError(
                .corrupt,
                "a relationship and its inverse disagree: \(message); a \(target) store keeps one side of them, so a copy would change the other (docutil check lists every such link); not written"
            )
        }
    }

    /// A to-many kept on its destinations' rows (one-to-many, or without an inverse) naming an object not in the
    /// store: a SQLite store keeps the link as a key on the destination's row, which is not there, so the copy would
    /// drop it.
    private static func missing(_ destination: ManagedObjectID, _ owner: ManagedObjectID, _ side: Side) -> StoreError {
        StoreError(
            .corrupt,
            "\(owner).\(side.name) names \(destination), which is not in the store: a SQLite store keeps this to-many relationship as a key on each destination's row, so the link would be dropped (docutil check reports it as a dangling reference); not written"
        )
    }

    /// Calls `body` with each link a relationship of a checked pair names between two of the snapshots: the side,
    /// the owner's place and the destination's (-1 for a to-many the snapshot did not read: its links are not
    /// known).
    private static func forEachLink(
        _ snapshots: [ObjectSnapshot], model: ManagedObjectModel, places: [ManagedObjectID: Int], registry: Registry,
        sides sidesByEntity: inout [String: [Side]], _ body: (Side, Int, Int) throws(StoreError) -> Void
    ) throws(StoreError) {
        // Snapshots come in runs of one entity: its sides and layout are looked up once a run.
        var last: (entity: String, sides: [Side], layout: EntityLayout?)?
        for (owner, snapshot) in snapshots.enumerated() {
            let entity = snapshot.objectID.entityName
            if last?.entity != entity {
                let sides = sidesByEntity[entity] ?? registry.sides(of: entity, model: model)
                sidesByEntity[entity] = sides
                last = (entity, sides, model.layout(of: entity))
            }
            guard let (_, sides, layout) = last, !sides.isEmpty else { continue }
            // A snapshot held by the entity's slots is read by slot, nothing looked up by name.
            let slotted = snapshot.slottedRelationships.flatMap { $0.layout === layout ? $0.values : nil }
            for side in sides {
                if let slotted, side.slot >= 0 {
                    switch side.slot < slotted.count ? slotted[side.slot] : .absent {
                    case .toMany(let destinations):
                        for destination in destinations {
                            if let place = places[destination] {
                                try body(side, owner, place)
                            } else if side.isKeptOnDestinations {
                                throw missing(destination, snapshots[owner].objectID, side)
                            }
                        }
                    case .toOne(let destination?):
                        if let place = places[destination] { try body(side, owner, place) }
                    case .toManyFault: try body(side, owner, -1)
                    default: break
                    }
                } else if side.isToMany, snapshot.isToManyFault(side.name) {
                    try body(side, owner, -1)
                } else if side.isToMany {
                    for destination in snapshot[toMany: side.name] ?? [] {
                        if let place = places[destination] {
                            try body(side, owner, place)
                        } else if side.isKeptOnDestinations {
                            throw missing(destination, snapshot.objectID, side)
                        }
                    }
                } else if let destination = snapshot[toOne: side.name] ?? nil, let place = places[destination] {
                    try body(side, owner, place)
                }
            }
        }
    }
}
