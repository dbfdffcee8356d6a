#!/usr/bin/perl
