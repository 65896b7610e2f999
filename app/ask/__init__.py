"""The question: recall (hybrid search), context for a dialog model, grounded answers and time words."""
