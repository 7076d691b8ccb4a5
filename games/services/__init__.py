"""The domain layer of rounds: the flow, the ledger's postings, the outbox and settlement."""
