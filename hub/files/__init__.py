"""Files agents and people upload to the hub (docs/protocol.md "Files"): the bytes on disk, shared by content
(`blobs.py`), and what type each is stored and served as (`types.py`). The rows that say which workspace holds which
file are the `files` projection, written by the `file.stored` event (hub/domain/files.py, hub/store/projections.py);
the HTTP routes are hub/web/files.py.
"""
