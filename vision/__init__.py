"""Vision: find the board in camera images and read its stacks (and the synthetic camera in ``vision.synth``)."""
