"""The pure core: numbers, problem and solution formats, the engine, metrics and the grader. No I/O."""
