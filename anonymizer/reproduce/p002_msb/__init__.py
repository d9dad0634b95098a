"""Paper 002 (MSB, anatomy with security levels): the setting, the experiment, plots."""
