// Removed once the layer has sources.
