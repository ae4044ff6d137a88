"""HTTP and WebSocket server: thin Starlette app plugged into the service layer."""
