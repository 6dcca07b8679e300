"""ntpcheck."""
