"""Vision: faces in camera and video frames."""
