#!/bin/sh
echo "elapsed_s 1"
