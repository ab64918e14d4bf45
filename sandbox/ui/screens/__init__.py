"""The app's modal screens: help, settings, app RTVI frame."""
