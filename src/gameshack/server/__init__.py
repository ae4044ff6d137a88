"""HTTP and WebSocket server: thin FastAPI app plugged into the service layer."""
