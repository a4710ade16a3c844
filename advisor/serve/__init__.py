"""`advisor serve`: the web app that follows a real game at the table from a phone (docs/serve.md).

`app.py` the Starlette app (routes, token, body cap, errors as 4xx), `store.py` the games saved on
the server after every entry, `view.py` the question and the table as the page shows them,
`searches.py` "what now?" run in a process of its own and streamed, `played.py` a game against the
AI (advisor play's session) whose AI seats move by themselves, `kept.py` what every kept game has;
`static/` the page."""
