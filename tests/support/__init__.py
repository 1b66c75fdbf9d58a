"""What the tests share: helpers that belong to no one test module (issue 30). New shared
helpers go here, not into a test module that others import from."""
