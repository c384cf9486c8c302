import PostgresNIO

/// Other instances' link changes, over LISTEN/NOTIFY on the store's channel (see `LinkChangeFeed`).
extension PostgresStore: LinkChangeFeed {
    public var linkChanges: (any LinkChangeFeed)? { self }

    public func watchLinkChanges(_ onChange: @escaping @Sendable (LinkChange) -> Void) async {
        var failures = 0
        while !Task.isCancelled {
            do {
                try await client.withConnection { connection in
                    try await connection.listen(on: channel) { notifications in
                        // Listening now; anything before may have been missed.
                        onChange(.all)
                        if failures > 0 {
                            // Said, so that the log shows the failure ended and not only that it began.
                            logger.info("listening for link changes again, after \(failures) failed attempts; the link cache was emptied")
                        }
                        failures = 0
                        for try await notification in notifications {
                            let parts = notification.payload.split(separator: "\t", maxSplits: 1)
                            if parts.count == 2 {
                                onChange(.link(domain: String(parts[0]), code: String(parts[1])))
                            } else {
                                onChange(.all)
                            }
                        }
                    }
                }
                // The notifications ended without an error: the database closed the connection (a restart,
                // `pg_terminate_backend`). Missed changes are as possible as after a failure.
                if Task.isCancelled { break }
                failures += 1
                if failures == 1 || failures % 60 == 0 {
                    logger.warning("listening for link changes failed (the connection ended); retrying every second")
                }
            } catch {
                if Task.isCancelled { break }
                failures += 1
                if failures == 1 || failures % 60 == 0 {
                    logger.warning("listening for link changes failed (\(Self.explain(error))); retrying every second")
                }
            }
            try? await Task.sleep(for: .seconds(1))
        }
    }
}
