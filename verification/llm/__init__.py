"""The model-backed path: the chat client every model role talks through, chain of verification, the
critic, the generator and the cascade that sends the model only what the offline verifier cannot settle."""
