"""The only randomness: seeded draws, presets, guarantees and sheet codes."""
