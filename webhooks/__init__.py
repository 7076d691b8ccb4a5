"""Webhooks: news of the floor pushed to integrators' endpoints as it happens (issue 33).

An event is written in the transaction that makes it true (an outbox row, `Event`), then
fanned out by a worker into one `Delivery` per subscribed endpoint of its certificate
holder, each POSTed, signed by the Standard Webhooks package, until it is answered 2xx,
with backoff and a bounded number of tries. docs/api.md, "Webhooks", is the integrator's
guide; docs/adr/0011-webhooks.md says why it is built so.

- events.py     the event types and their data, pure (the engines' layer)
- addresses.py  what an endpoint's URL and address may be (server-side request forgery), pure
- models.py     endpoints, events, deliveries and their attempts
- services.py   recording an event in the caller's transaction; registering endpoints
- delivery.py   fan-out, one try of a delivery, the circuit breaker, the sweep, pruning
- sending.py    the POST itself: the address checked is the one connected to
- payloads.py   each event's body, in one place (the API's own serializers)
- apis.py, admin.py
"""
