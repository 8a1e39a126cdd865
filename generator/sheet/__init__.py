"""What a sheet says and where: settings, views of its matrices, panels, styles, words."""
