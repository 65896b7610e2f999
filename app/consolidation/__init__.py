"""Memory writing (EgoMem's memory agent with MOOM's and Light-Omni's consolidation) on the local LLM.

closed session ──queue (in the encrypted database)──▶ extract (schema JSON, checked against its lines)
    ──▶ merge (ADD / UPDATE / SUPERSEDE / NOOP, bi-temporal) ──▶ relations ──▶ session summary
    ──▶ day summary, person global state (when their thresholds are reached) ──▶ forgetting (MOOM)
Every row written cites the utterances (or summaries) it came from, so forgetting those deletes it.
The queue runner is `app.consolidation.consolidator.Consolidator`.
"""
