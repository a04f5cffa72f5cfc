"""What every room's REST doors share (helpers, serializers; they import no room), and the
games app's route table (urls), which names every room's doors."""
