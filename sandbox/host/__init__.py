"""The asyncio host: dialing the brain and running a call around the sans-I/O core."""
