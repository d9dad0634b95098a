"""(reading guide: to be written)"""
