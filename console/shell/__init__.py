"""The asyncio shell around the engines and its adapters: the runtime, MQTT, the broker,
sound, the display server, the daemon and systemd."""
