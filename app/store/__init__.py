"""The encrypted memory: SQLCipher + sqlite-vec + FTS5 in one database; all SQL lives in this package."""
