"""The voice companion: turn-taking (`turns`), full-duplex audio with echo cancellation (`duplex`, `echo`),
offline text-to-speech (`tts`), the companion inside the recorder (`companion`) and a run with it (`session`)."""
