"""Who is there: voice score normalisation, its cohort, and (later) identity polling."""
